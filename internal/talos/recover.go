package talos

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/siderolabs/talos/pkg/machinery/api/machine"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// ErrNotReadyForRecovery says a control plane's etcd service cannot take a snapshot yet
// (machined answers FailedPrecondition until the service prepared its directory): ask
// again.
var ErrNotReadyForRecovery = errors.New("etcd is not ready for a recovery yet")

// EtcdRecover uploads snapshot to the node, where machined keeps it for the recovering
// bootstrap (talosctl etcd ... bootstrap --recover-from does the same two calls).
func (n *clientNode) EtcdRecover(ctx context.Context, snapshot io.Reader) error {
	_, err := n.c.EtcdRecover(n.with(ctx), snapshot)
	if status.Code(err) == codes.FailedPrecondition {
		return fmt.Errorf("%w: %s", ErrNotReadyForRecovery, status.Convert(err).Message())
	}

	return err
}

// BootstrapRecover starts etcd from the uploaded snapshot. The hash check stays on
// (RecoverSkipHashCheck false): a snapshot taken with EtcdSnapshot carries etcd's hash,
// only a copy of a member's data directory lacks it. ErrBootstrapped says the node's
// etcd has data already.
func (n *clientNode) BootstrapRecover(ctx context.Context) error {
	err := n.c.Bootstrap(n.with(ctx), &machine.BootstrapRequest{RecoverEtcd: true})
	if status.Code(err) == codes.AlreadyExists {
		return fmt.Errorf("%w: %s", ErrBootstrapped, status.Convert(err).Message())
	}

	return err
}
