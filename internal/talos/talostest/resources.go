package talostest

import (
	"context"
	"fmt"

	"github.com/cosi-project/runtime/pkg/resource"
	"github.com/cosi-project/runtime/pkg/resource/meta"
	"github.com/cosi-project/runtime/pkg/state"
	"github.com/cosi-project/runtime/pkg/state/registry"
	"github.com/siderolabs/talos/pkg/machinery/resources/cluster"
	"github.com/siderolabs/talos/pkg/machinery/resources/config"
	"github.com/siderolabs/talos/pkg/machinery/resources/network"
	"github.com/siderolabs/talos/pkg/machinery/resources/runtime"
)

// register writes the namespaces and resource definitions of what the fake holds, as
// machined's v1alpha2 State does at start (NewState in
// internal/app/machined/pkg/runtime/v1alpha2/v1alpha2_state.go, v1.14.1): talosctl
// resolves "machineconfig" or "members" through the ResourceDefinitions of namespace meta,
// and the access policy refuses a type or namespace that is not registered.
func register(ctx context.Context, st state.State) error {
	namespaces := registry.NewNamespaceRegistry(st)
	if err := namespaces.RegisterDefault(ctx); err != nil {
		return err
	}

	for _, ns := range []struct {
		name        resource.Namespace
		description string
	}{
		{runtime.NamespaceName, "Talos v1alpha1 subsystems glue resources."},
		{cluster.NamespaceName, "Cluster configuration and discovery resources."},
		{config.NamespaceName, "Talos node configuration."},
		{network.NamespaceName, "Networking resources."},
	} {
		if err := namespaces.Register(ctx, ns.name, ns.description); err != nil {
			return fmt.Errorf("register namespace %s: %w", ns.name, err)
		}
	}

	resources := registry.NewResourceRegistry(st)
	if err := resources.RegisterDefault(ctx); err != nil {
		return err
	}

	for _, r := range []meta.ResourceWithRD{
		&config.MachineConfig{},
		&config.MachineType{},
		&runtime.MachineStatus{},
		&runtime.ExtensionStatus{},
		&cluster.Member{},
		&network.HostnameStatus{},
	} {
		if err := resources.Register(ctx, r); err != nil {
			return fmt.Errorf("register %T: %w", r, err)
		}
	}

	return registerKubernetes(ctx, st)
}
