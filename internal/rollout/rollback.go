package rollout

import (
	"context"
	"fmt"

	"github.com/talops/talops/internal/talos"
)

// rollBack boots a node whose health gate failed after its upgrade back into the Talos it
// ran before (--rollback): Talos' rollback points the bootloader at the previous image and
// reboots; the node must come back on that version and pass the gate it passed before the
// upgrade (pre). The node fails either way, so the rollout stops there; a node that rolled
// back healthy is uncordoned, as it runs what it ran before its drain.
func (st *stepper) rollBack(pre health, cause error) NodeResult {
	failed := "upgrade: " + talos.OneLine(cause)
	old := st.s.Version

	running, err := st.runningVersion()

	switch {
	case err != nil:
		return st.outcome(Failed, failed+"; not rolled back: "+talos.OneLine(err))
	case running != st.s.Upgrade.Version:
		return st.outcome(Failed, fmt.Sprintf("%s; not rolled back: it runs Talos %s, not the upgrade's %s", failed, running, st.s.Upgrade.Version))
	}

	st.say("rolling it back to Talos " + old + " (--rollback)")

	if err := st.call(func(ctx context.Context, n talos.Node) error { return n.Rollback(ctx) }); err != nil {
		return st.outcome(Failed, failed+"; then the rollback: "+talos.OneLine(err))
	}

	st.res.Rebooted = true

	if _, _, err := rebootGate(st.ctx, st.d, st.s, st.o, pre, gateWant{rebooted: true, version: old}, st.say); err != nil {
		return st.outcome(Failed, failed+"; rolled back to Talos "+old+", then its health gate: "+talos.OneLine(err))
	}

	if st.controlPlane() {
		if err := etcdGate(st.ctx, st.d, st.members, st.o); err != nil {
			return st.outcome(Failed, failed+"; rolled back to Talos "+old+", then etcd did not become healthy: "+talos.OneLine(err))
		}
	}

	st.res.RolledBack = old

	return st.outcome(Failed, failed+"; rolled back to Talos "+old+" (--rollback), healthy")
}

// runningVersion asks the node which Talos it runs.
func (st *stepper) runningVersion() (string, error) {
	var v string

	err := st.call(func(ctx context.Context, n talos.Node) error {
		var err error
		v, err = n.Version(ctx)

		return err
	})

	return v, err
}

// call dials the node and makes one call within the call timeout.
func (st *stepper) call(f func(context.Context, talos.Node) error) error {
	ctx, cancel := context.WithTimeout(st.ctx, st.o.CallTimeout)
	defer cancel()

	n, err := st.d.Dial(ctx, st.s.Address)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer n.Close() //nolint:errcheck // the call's error matters

	return f(ctx, n)
}
