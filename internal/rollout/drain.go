package rollout

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/talops/talops/internal/talos"
)

// DefaultDrainTimeout is how long a node's drain may take, as talosctl's --drain-timeout.
const DefaultDrainTimeout = 5 * time.Minute

// uncordonTimeout bounds the uncordon of a node: one update of its Node object.
const uncordonTimeout = 30 * time.Second

// disrupts reports whether the step reboots the node: an upgrade always does, a config
// change does where the plan says it needs a reboot and the mode lets one happen (talops
// reboots the node, or a node before Talos 1.14 reboots by itself). Staged and try modes
// never reboot, a live change needs none.
func (st *stepper) disrupts() bool {
	return st.s.Upgrade != nil || st.s.Node.NeedsReboot && st.o.Mode == talos.ModeAuto
}

// drains reports whether the node is drained before its disruption: only with a
// Kubernetes API to ask and unless told not to (a dry run only says it would).
func (st *stepper) drains() bool {
	return st.o.Kube != nil && !st.o.NoDrain && st.disrupts()
}

// kubeNode is the name of the node's Node object.
func (st *stepper) kubeNode() string {
	if st.s.KubeNode != "" {
		return st.s.KubeNode
	}

	return st.s.Node.Name
}

// drainTimeout is the bound of one drain.
func (st *stepper) drainTimeout() time.Duration {
	if st.o.DrainTimeout > 0 {
		return st.o.DrainTimeout
	}

	return DefaultDrainTimeout
}

// drain cordons the node and evicts its pods before it is disrupted. A drain that fails
// leaves the node untouched, so it is uncordoned back: it was never disrupted, and its
// pods may return. The error says what was not done.
func (st *stepper) drain() error {
	timeout := st.drainTimeout()

	st.say(fmt.Sprintf("draining (up to %s)", timeout))

	start := st.o.now()

	err := st.o.Kube.Drain(st.ctx, st.kubeNode(), timeout, st.say)
	if err == nil {
		st.drained = true

		return nil
	}

	notDone := "its config was not applied"
	if st.s.Upgrade != nil {
		notDone = "it was not upgraded"
	}

	// kubectl's drain says its own "global timeout reached", wrapping nothing: the time
	// it took tells too.
	what := "drain"
	if errors.Is(err, context.DeadlineExceeded) || st.o.now().Sub(start) >= timeout {
		what = fmt.Sprintf("drain did not finish in %s", timeout)
	}

	err = fmt.Errorf("%s: %s; %s", what, talos.OneLine(err), notDone)

	if uerr := st.uncordon(); uerr != nil {
		st.res.Cordoned = true

		return fmt.Errorf("%w; it stays cordoned, the uncordon failed: %s", err, talos.OneLine(uerr))
	}

	return err
}

// uncordon makes the node schedulable again, with a context of its own: an interrupted
// rollout still gives back what it cordoned.
func (st *stepper) uncordon() error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(st.ctx), uncordonTimeout)
	defer cancel()

	if err := st.o.Kube.Uncordon(ctx, st.kubeNode()); err != nil {
		return fmt.Errorf("uncordon node %s: %w", st.kubeNode(), err)
	}

	return nil
}

// afterDrain settles a drained node once its step ended: uncordoned when it was applied
// (its health gate passed), left cordoned when it failed after the drain, and the report
// says so. An uncordon that fails fails the node: the rollout must not cordon more.
func (st *stepper) afterDrain(out NodeResult) NodeResult {
	if !st.drained {
		return out
	}

	st.drained = false

	if out.Outcome != Applied && out.RolledBack == "" {
		out.Cordoned = true
		out.Detail += fmt.Sprintf("; the node stays cordoned (kubectl uncordon %s once it is healthy)", st.kubeNode())

		return out
	}

	if err := st.uncordon(); err != nil {
		out.Outcome, out.Cordoned = Failed, true
		out.Detail += "; then " + talos.OneLine(err) + ": the node stays cordoned"

		return out
	}

	st.say("uncordoned")

	return out
}

// wouldDrain is what a dry run says about the drain the apply would do.
func (st *stepper) wouldDrain() string {
	if !st.drains() {
		return ""
	}

	return "; talops would drain it first"
}
