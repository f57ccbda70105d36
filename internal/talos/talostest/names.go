package talostest

import (
	"context"

	"github.com/cosi-project/runtime/pkg/safe"
	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/resources/k8s"
	"github.com/siderolabs/talos/pkg/machinery/resources/network"
)

// hostname is the hostname the node goes by, as Talos picks it: the one its config sets
// (a HostnameConfig document or machine.network.hostname), else the one it was started
// with (Node.Hostname, as Talos' own talos-xxx-yyy), else its name in the fake.
func (n Node) hostname(cfg coreconfig.Provider) string {
	if cfg != nil {
		if h := cfg.NetworkHostnameConfig(); h != nil && h.Hostname() != "" {
			return h.Hostname()
		}
	}

	if n.Hostname != "" {
		return n.Hostname
	}

	return n.Name
}

// publishNames writes what the node says its names are: its HostnameStatus and, once it
// runs a config, the Nodename its kubelet registers its Node object as (the hostname, as
// NodenameController names it without registerWithFQDN), unless NoNodename.
func (m *machineService) publishNames(ctx context.Context, cfg coreconfig.Provider) error {
	name := m.node.hostname(cfg)

	if err := createOrUpdate(ctx, m.state, hostnameStatus(name)); err != nil {
		return err
	}

	if cfg == nil || m.node.NoNodename {
		return nil
	}

	r := k8s.NewNodename(k8s.NamespaceName, k8s.NodenameID)
	r.TypedSpec().Nodename = name

	return createOrUpdate(ctx, m.state, r)
}

// forgetNames is what a wiped node says: the hostname it picks, no Nodename (its kubelet
// does not run in maintenance mode).
func (m *machineService) forgetNames(ctx context.Context) error {
	if _, err := safe.StateGetByID[*k8s.Nodename](ctx, m.state, k8s.NodenameID); err == nil {
		if err := m.state.Destroy(ctx, k8s.NewNodename(k8s.NamespaceName, k8s.NodenameID).Metadata()); err != nil {
			return err
		}
	}

	return m.publishNames(ctx, nil)
}

// hostnameStatus is the node's hostname as Talos reports it.
func hostnameStatus(name string) *network.HostnameStatus {
	h := network.NewHostnameStatus(network.NamespaceName, network.HostnameID)
	h.TypedSpec().Hostname = name

	return h
}
