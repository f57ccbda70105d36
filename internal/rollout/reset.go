package rollout

import (
	"context"
	"fmt"

	"github.com/talops/talops/internal/talos"
)

// rebootGate is the health gate after a reboot or an upgrade. A node that does not pass it
// is, with Options.ResetVM, reset once through its hypervisor and given one more gate: a VM
// hung in its firmware or kernel comes back from a reset, and a person would do just that.
// It reports whether the node was reset.
func rebootGate(ctx context.Context, d talos.Dialer, s Step, o Options, before health, want gateWant, say func(string)) (health, bool, error) {
	h, err := gate(ctx, d, s, o, before, want)
	if err == nil || !want.rebooted || o.ResetVM == nil || ctx.Err() != nil {
		return h, false, err
	}

	say("not healthy after its reboot (" + talos.OneLine(err) + "): resetting its VM through Proxmox")

	if rerr := o.ResetVM(ctx, s.Node.Name); rerr != nil {
		return h, false, fmt.Errorf("%w; then the reset of its VM through Proxmox failed: %v", err, rerr) //nolint:errorlint // the health failure is what the error means; the reset's is only told
	}

	say("reset through Proxmox: waiting for its health gate once more")

	if h, err = gate(ctx, d, s, o, before, want); err != nil {
		return h, true, fmt.Errorf("not healthy after a reset of its VM through Proxmox either: %w", err)
	}

	return h, true, nil
}
