package rollout

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/talops/talops/internal/talos"
)

// removeStep takes a node out of the cluster: it is drained through Kubernetes, reset
// gracefully (a control plane leaves etcd first, which another control plane's member list
// then confirms), and its Node object is deleted. It runs after every other change, one
// node at a time; the preflight has refused removals that would cost etcd its quorum.
func removeStep(ctx context.Context, d talos.Dialer, s Step, o Options, members []Step, res NodeResult, r *Report, say func(string)) NodeResult {
	st := &stepper{ctx: ctx, d: d, s: s, o: o, members: members, res: res, report: r, say: say}

	if s.NotSelected {
		return st.outcome(Skipped, "not selected (--nodes)")
	}

	start := o.now()

	remove := st.remove
	if s.Node.Unreachable {
		remove = st.removeUnreachable
	}

	out := remove()

	say(fmt.Sprintf("%s after %s", out.Outcome, o.now().Sub(start).Round(time.Second)))

	return out
}

// remove is the removal's phases; each failure says what was done before it.
func (st *stepper) remove() NodeResult {
	if st.s.Address == "" {
		return st.fail("not removed", errors.New("its address is unknown"))
	}

	if _, err := observe(st.ctx, st.d, st.s, st.o); err != nil {
		return st.fail("not reachable before the removal", err)
	}

	if st.controlPlane() {
		if err := etcdGate(st.ctx, st.d, st.members, st.o); err != nil {
			return st.fail("etcd not healthy before a control plane leaves", err)
		}

		if err := st.snapshot(); err != nil {
			return st.fail("etcd snapshot before the first control-plane change", err)
		}
	}

	if st.o.DryRun {
		return st.outcome(DryRun, "talops would "+removal(st.controlPlane(), st.removalDrains()))
	}

	var done []string

	switch {
	case st.o.Kube == nil:
		st.say("not drained: no Kubernetes API")
		done = append(done, "not drained (no Kubernetes API)")
	case st.o.NoDrain:
		st.say("not drained: --no-drain")
		done = append(done, "not drained (--no-drain)")
	default:
		if err := st.removalDrain(); err != nil {
			return st.fail("not removed", err)
		}

		done = append(done, "drained")
	}

	st.say("resetting it")

	if err := st.reset(); err != nil {
		return st.fail(strings.Join(append(done, "then the reset"), ", "), err)
	}

	done = append(done, "reset")

	if st.controlPlane() {
		removedHere, err := st.leftEtcd()
		if err != nil {
			return st.fail(strings.Join(append(done, "then etcd"), ", "), err)
		}

		left := "left etcd"
		if removedHere {
			left = "removed from etcd (it did not leave by itself)"
		}

		done = append(done, left)
	}

	done, err := st.deleteNode(done)
	if err != nil {
		return st.fail(strings.Join(append(done, "then deleting its Node"), ", "), err)
	}

	return st.outcome(Applied, "removed: "+strings.Join(done, ", "))
}

// deleteNode deletes the removed node's Node object, or says why not (no Kubernetes
// API), adding what it did to done.
func (st *stepper) deleteNode(done []string) ([]string, error) {
	if st.o.Kube == nil {
		return append(done, "Node not deleted (no Kubernetes API)"), nil
	}

	cctx, cancel := context.WithTimeout(st.ctx, st.o.CallTimeout)
	defer cancel()

	if err := st.o.Kube.DeleteNode(cctx, st.kubeNode()); err != nil {
		return done, err
	}

	return append(done, "Node deleted"), nil
}

// removal says what removing a node does.
func removal(controlPlane, drains bool) string {
	reset := "reset it"
	if controlPlane {
		reset += " (it leaves etcd first)"
	}

	if !drains {
		return reset + " without a drain, delete its Node if a Kubernetes API is given"
	}

	return "drain it, " + reset + ", delete its Node"
}

// removalDrains reports whether a removed node is drained first.
func (st *stepper) removalDrains() bool { return st.o.Kube != nil && !st.o.NoDrain }

// removalDrain cordons the node and evicts its pods before it is reset. A drain that
// fails leaves the node as it was: uncordoned back, and not reset.
func (st *stepper) removalDrain() error {
	timeout := st.drainTimeout()

	st.say(fmt.Sprintf("draining (up to %s)", timeout))

	err := st.o.Kube.Drain(st.ctx, st.kubeNode(), timeout, st.say)
	if err == nil {
		return nil
	}

	err = fmt.Errorf("drain: %s; it was not reset", talos.OneLine(err))

	if uerr := st.uncordon(); uerr != nil {
		st.res.Cordoned = true

		return fmt.Errorf("%w; it stays cordoned, the uncordon failed: %s", err, talos.OneLine(uerr))
	}

	return err
}

// reset asks for a graceful reset that boots the node into maintenance mode, and waits
// until it stops answering over mTLS: the reset is under way.
func (st *stepper) reset() error {
	n, err := st.d.Dial(st.ctx, st.s.Address)
	if err != nil {
		return err
	}
	defer n.Close() //nolint:errcheck // the calls' errors matter

	cctx, cancel := context.WithTimeout(st.ctx, st.o.CallTimeout)
	err = n.Reset(cctx, talos.ResetOptions{Graceful: true, Reboot: true, Wipe: talos.WipeToMaintenance})

	cancel()

	if err != nil {
		return err
	}

	return poll(st.ctx, st.o, func(ctx context.Context) error {
		if st.answers(ctx) {
			return errors.New("the node still runs its config")
		}

		return nil
	})
}

// answers reports whether the node answers over mTLS.
func (st *stepper) answers(ctx context.Context) bool {
	cctx, cancel := context.WithTimeout(ctx, min(st.o.CallTimeout, 3*time.Second))
	defer cancel()

	n, err := st.d.Dial(cctx, st.s.Address)
	if err != nil {
		return false
	}
	defer n.Close() //nolint:errcheck // read-only

	_, err = n.Version(cctx)

	return err == nil
}

// leftEtcd checks on another control plane that the removed one is no etcd member any
// more. A node that went without leaving (a reset that skips it, as in container mode, or
// a dead one) is removed from there, and removedHere says so. Then etcd must be healthy
// with the members that remain.
func (st *stepper) leftEtcd() (removedHere bool, err error) {
	rest := slices.DeleteFunc(slices.Clone(st.members), func(m Step) bool { return m.Node.Name == st.s.Node.Name })
	if len(rest) == 0 {
		return false, errors.New("no other control plane to check etcd on")
	}

	err = poll(st.ctx, st.o, func(ctx context.Context) error {
		cctx, cancel := context.WithTimeout(ctx, st.o.CallTimeout)
		defer cancel()

		n, err := st.d.Dial(cctx, rest[0].Address)
		if err != nil {
			return err
		}
		defer n.Close() //nolint:errcheck // the calls' errors matter

		list, err := n.EtcdMembers(cctx)
		if err != nil {
			return fmt.Errorf("list etcd members on %s: %w", rest[0].Node.Name, err)
		}

		i := slices.IndexFunc(list, func(m talos.EtcdMember) bool {
			return m.Hostname == st.s.Node.Name || (st.s.Address != "" && m.Address() == st.s.Address)
		})
		if i < 0 {
			return nil
		}

		if err := n.EtcdRemoveMember(cctx, list[i].ID); err != nil {
			return fmt.Errorf("remove its etcd member on %s: %w", rest[0].Node.Name, err)
		}

		removedHere = true

		return errors.New("etcd still lists it")
	})
	if err != nil {
		return removedHere, err
	}

	if err := etcdGate(st.ctx, st.d, rest, st.o); err != nil {
		return removedHere, fmt.Errorf("etcd not healthy after it left: %w", err)
	}

	return removedHere, nil
}
