package talos

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"

	"github.com/cosi-project/runtime/pkg/safe"
	"github.com/siderolabs/talos/pkg/machinery/api/machine"
	"github.com/siderolabs/talos/pkg/machinery/client"
	"github.com/siderolabs/talos/pkg/machinery/resources/runtime"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// StageMaintenance is the stage of a node that waits for its first config.
const StageMaintenance = "maintenance"

// Maintenance is the API of a node waiting in maintenance mode for its first config. It
// is served without client certificates and the node has no identity yet, so talops only
// uses it for a node the plan creates, at the address of talops.yaml, after checking the
// node's stage.
type Maintenance interface {
	// Version returns the Talos version the node booted.
	Version(ctx context.Context) (string, error)
	// Status returns the machine's stage ("maintenance" while it waits for a config).
	Status(ctx context.Context) (Status, error)
	// Apply sends the node its first config; with dryRun it only says what it would do.
	Apply(ctx context.Context, config []byte, dryRun bool) (Applied, error)
	Close() error
}

// DialMaintenance opens the maintenance API of the node at address: always straight to
// the node (never through the talosconfig's endpoints, which would proxy it elsewhere),
// with TLS but no verification, as talosctl --insecure does.
func (d *ClientDialer) DialMaintenance(ctx context.Context, address string) (Maintenance, error) {
	cl, err := client.New(ctx,
		client.WithEndpoints(d.endpoint(address)),
		//nolint:gosec // a node in maintenance mode has a self-signed certificate and no CA yet
		client.WithTLSConfig(&tls.Config{InsecureSkipVerify: true}))
	if err != nil {
		return nil, fmt.Errorf("talos client: %w", err)
	}

	return &maintenanceNode{c: cl}, nil
}

type maintenanceNode struct{ c *client.Client }

func (n *maintenanceNode) Version(ctx context.Context) (string, error) {
	resp, err := n.c.Version(ctx)
	if err != nil {
		return "", err
	}

	for _, m := range resp.GetMessages() {
		if tag := m.GetVersion().GetTag(); tag != "" {
			return tag, nil
		}
	}

	return "", errors.New("the node did not say its version")
}

func (n *maintenanceNode) Status(ctx context.Context) (Status, error) {
	ms, err := safe.StateGetByID[*runtime.MachineStatus](ctx, n.c.COSI, runtime.MachineStatusID)
	if err != nil {
		return Status{}, err
	}

	return machineStatus(ms), nil
}

func (n *maintenanceNode) Apply(ctx context.Context, config []byte, dryRun bool) (Applied, error) {
	// The node takes its first config without a reboot in any mode; AUTO says so.
	resp, err := n.c.ApplyConfiguration(ctx, &machine.ApplyConfigurationRequest{Data: config, Mode: machine.ApplyConfigurationRequest_AUTO, DryRun: dryRun})
	if err != nil {
		return Applied{}, err
	}

	return applied(resp), nil
}

func (n *maintenanceNode) Close() error { return n.c.Close() }

// Bootstrap starts etcd on the first control plane of a new cluster. ErrBootstrapped says
// the node's etcd already has data: the cluster was bootstrapped before.
func (n *clientNode) Bootstrap(ctx context.Context) error {
	err := n.c.Bootstrap(n.with(ctx), &machine.BootstrapRequest{})
	if status.Code(err) == codes.AlreadyExists {
		return fmt.Errorf("%w: %s", ErrBootstrapped, status.Convert(err).Message())
	}

	return err
}

// ErrBootstrapped says a node's etcd already has data.
var ErrBootstrapped = errors.New("etcd was bootstrapped before")

// Kubeconfig returns the cluster's admin kubeconfig, as a control plane generates it from
// its config (talosctl kubeconfig).
func (n *clientNode) Kubeconfig(ctx context.Context) ([]byte, error) {
	return n.c.Kubeconfig(n.with(ctx))
}
