package rollout

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/talos"
)

// stepper brings one node to its desired state: each phase of a step is one method, and
// the node's result is filled in as the phases go.
type stepper struct {
	ctx     context.Context
	d       talos.Dialer
	s       Step
	o       Options
	members []Step
	res     NodeResult
	// upgraded says what an upgrade did before the config is applied ("" for none).
	upgraded string
	// report is the rollout's, for what is taken once for all nodes (the etcd snapshot).
	report *Report
	// say reports progress, one line per phase.
	say func(string)
	// drained is set once the node was drained: it is uncordoned after its gate passes,
	// or left cordoned when it fails.
	drained bool
}

// step brings one node to its desired state and waits until it is no less healthy than it
// was. On a control plane, etcd must be healthy before anything is touched and again after.
func step(ctx context.Context, d talos.Dialer, s Step, o Options, members []Step, res NodeResult, r *Report, say func(string)) NodeResult {
	o.waiting = say // this node's waits say they go on, on its progress line
	st := &stepper{ctx: ctx, d: d, s: s, o: o, members: members, res: res, report: r, say: say}

	if (s.Node.Action == plan.Noop && !s.Regate) || s.NotSelected || s.DoneBefore != "" {
		return st.run()
	}

	start := o.now()
	out := st.afterDrain(st.run())

	say(fmt.Sprintf("%s after %s", out.Outcome, o.now().Sub(start).Round(time.Second)))

	return out
}

func (st *stepper) run() NodeResult {
	switch {
	case st.s.NotSelected:
		return st.outcome(Skipped, "not selected (--nodes)")
	case st.s.DoneBefore != "":
		return st.outcome(Applied, st.s.DoneBefore)
	case st.s.Regate && st.s.Node.Action == plan.Noop:
		return st.regate()
	case st.s.Node.Action == plan.Noop:
		return st.outcome(Skipped, "already in the desired state")
	case st.s.Node.Action == plan.Create:
		return st.create()
	}

	before, err := observe(st.ctx, st.d, st.s, st.o)
	if err != nil {
		return st.fail("not healthy before the apply", err)
	}

	if st.controlPlane() {
		if err := etcdGate(st.ctx, st.d, st.members, st.o); err != nil {
			return st.fail("etcd not healthy before touching this control plane", err)
		}

		if err := st.snapshot(); err != nil {
			return st.fail("etcd snapshot before the first control-plane change", err)
		}
	}

	// Before anything reaches the node: a drain that cannot finish leaves it untouched.
	if st.drains() && !st.o.DryRun {
		if err := st.drain(); err != nil {
			return st.outcome(Failed, err.Error())
		}
	}

	// A safe point, the last before the node changes: the gates and the drain took time,
	// in which the apply lock may have been lost.
	if err := st.o.stop(); err != nil {
		return st.halt("", "before anything reached the node", err)
	}

	if st.s.Upgrade != nil {
		return st.upgradeThenApply(before)
	}

	return st.apply(before)
}

// upgradeThenApply upgrades the node first, then applies its config when that changes too.
func (st *stepper) upgradeThenApply(before health) NodeResult {
	if st.o.DryRun {
		detail := "talops would " + upgradePlan(st.s)
		if st.s.Node.ConfigChanged {
			detail += ", then apply its config"
		}

		return st.outcome(DryRun, detail+st.wouldDrain())
	}

	st.say("upgrading to " + st.s.Upgrade.describe())

	pre := before

	before, reset, err := upgrade(st.ctx, st.d, st.s, st.o, before, st.say)
	st.res.ProxmoxReset = reset

	if gateErr := (upgradeGateError{}); st.o.Rollback && errors.As(err, &gateErr) && st.ctx.Err() == nil {
		return st.rollBack(pre, err)
	}

	if err != nil {
		return st.fail("upgrade", err)
	}

	st.res.Rebooted = true
	st.upgraded = "upgraded to " + st.s.Upgrade.describe() + ", rebooted"
	if reset {
		st.upgraded += " (its VM was reset through Proxmox once, as it did not come back)"
	}
	st.s.Version = st.s.Upgrade.Version

	if !st.s.Node.ConfigChanged {
		return st.finish(notReady(st.upgraded+", healthy", before), "upgraded ("+st.upgraded+"), then")
	}

	// A safe point between the upgrade, done and gated, and the config.
	if err := st.o.stop(); err != nil {
		return st.halt(st.upgraded+", healthy; ", "before its config", err)
	}

	return st.apply(before)
}

// snapshot saves an etcd snapshot from this control plane when none was taken yet (control
// planes change one at a time, so the first one takes it). A dry run takes none.
func (st *stepper) snapshot() error { return st.snapshotFrom(st.s.Address) }

// snapshotFrom takes the snapshot on the control plane at address.
func (st *stepper) snapshotFrom(address string) error {
	if st.o.Snapshot == nil || st.o.DryRun || st.report.EtcdSnapshot != "" {
		return nil
	}

	n, err := st.d.Dial(st.ctx, address)
	if err != nil {
		return err
	}
	defer n.Close() //nolint:errcheck // the snapshot's error matters

	where, err := st.o.Snapshot(st.ctx, n)
	if err != nil {
		return err
	}

	st.report.EtcdSnapshot = where
	st.say("etcd snapshot saved to " + where)

	return nil
}

// apply sends the config, reboots the node where the plan says the change needs it and
// the node did not reboot by itself, and waits for the node's health gate.
func (st *stepper) apply(before health) NodeResult {
	n, err := st.d.Dial(st.ctx, st.s.Address)
	if err != nil {
		return st.fail(st.done("connect"), err)
	}
	defer n.Close() //nolint:errcheck // the calls' errors matter

	st.say("sending its config (mode " + string(st.o.Mode) + ")")

	cctx, cancel := context.WithTimeout(st.ctx, st.o.CallTimeout)
	applied, err := n.Apply(cctx, st.s.Config, st.o.Mode, st.o.DryRun)

	cancel()

	if err != nil {
		return st.fail(st.done("apply the config"), err)
	}

	st.res.Warnings = applied.Warnings

	if st.o.DryRun {
		return st.outcome(DryRun, st.dryRunDetail(applied))
	}

	rebooted := applied.Rebooting

	// From Talos 1.14 the node never reboots on apply: talops reboots it where the plan
	// says the change needs one.
	if st.talopsReboots(applied) {
		st.say("rebooting it")

		cctx, cancel := context.WithTimeout(st.ctx, st.o.CallTimeout)
		err := n.Reboot(cctx)

		cancel()

		if err != nil {
			return st.fail(st.done("config applied ("+describe(applied.Mode)+"), then the reboot"), err)
		}

		rebooted = true
	}

	st.res.Rebooted = st.res.Rebooted || rebooted

	want := gateWant{rebooted: rebooted, version: st.s.Version}
	if st.o.Mode != talos.ModeStaged {
		// A staged config is not the running one until the next boot.
		want.config = st.s.Config
	}

	st.say("waiting for its health gate")

	after, reset, err := rebootGate(st.ctx, st.d, st.s, st.o, before, want, st.say)
	st.res.ProxmoxReset = st.res.ProxmoxReset || reset

	if err != nil {
		return st.fail(st.done("config applied ("+describe(applied.Mode)+"), then the health gate"), err)
	}

	return st.finish(st.gatedDetail(rebooted, reset, after), st.done("config applied ("+describe(applied.Mode)+"), then"))
}

// dryRunDetail says what a dry run learnt: that the node accepts the config, and what a
// real apply would do.
func (st *stepper) dryRunDetail(applied talos.Applied) string {
	detail := "the node accepts the config (" + describe(applied.Mode) + ")"
	if st.talopsReboots(applied) {
		detail += "; talops would reboot it"
	}

	detail += st.wouldDrain()

	if summary := dryRunSummary(applied.Details); summary != "" {
		detail += "; the node says: " + summary
	}

	return detail
}

// gatedDetail says what an apply did once the node passed its health gate (after).
func (st *stepper) gatedDetail(rebooted, reset bool, after health) string {
	detail := notReady(st.appliedDetail(rebooted), after)
	if reset {
		detail += "; its VM was reset through Proxmox once, as it did not come back"
	}

	if st.upgraded != "" {
		detail = st.upgraded + "; config " + detail
	}

	return detail
}

// notReady rewords a detail for a node the gate let pass although it is not ready,
// because it was no better before the change: it is not called healthy.
func notReady(detail string, after health) string {
	if after.status.Running() {
		return detail
	}

	detail = strings.TrimSuffix(detail, ", healthy") + "; not ready, as before the change"
	if len(after.status.Unmet) > 0 {
		detail += ";" + unmet(after.status.Unmet)
	}

	return detail
}

// talopsReboots reports whether talops must reboot the node itself after the apply.
func (st *stepper) talopsReboots(applied talos.Applied) bool {
	return st.s.Node.NeedsReboot && !applied.Rebooting && st.o.Mode == talos.ModeAuto
}

func (st *stepper) appliedDetail(rebooted bool) string {
	switch {
	case st.o.Mode == talos.ModeStaged:
		return "staged: takes effect on the node's next reboot"
	case st.o.Mode == talos.ModeTry:
		return fmt.Sprintf("applied in try mode: the node rolls it back after %s", talos.TryTimeout)
	case rebooted:
		return "applied, rebooted, healthy"
	case st.s.Node.NeedsReboot:
		return "applied without a reboot (--mode " + string(st.o.Mode) + "): the change takes effect on the next reboot"
	default:
		return "applied live, healthy"
	}
}

// finish checks etcd once a control plane is back, and records the outcome.
func (st *stepper) finish(detail, failedAfter string) NodeResult {
	if st.controlPlane() {
		members := st.members
		if st.s.Node.Action == plan.Create {
			// A new control plane has joined: etcd lists it too.
			members = append(members, st.s)
		}

		if err := etcdGate(st.ctx, st.d, members, st.o); err != nil {
			st.res.Outcome, st.res.Detail = Failed, failedAfter+" etcd did not become healthy: "+talos.OneLine(err)

			return st.res
		}
	}

	return st.outcome(Applied, detail)
}

// done prefixes what a failed phase was with the upgrade that went before it.
func (st *stepper) done(what string) string {
	if st.upgraded == "" {
		return what
	}

	return st.upgraded + "; " + what
}

func (st *stepper) controlPlane() bool { return st.s.controlPlane() }

func (st *stepper) outcome(o Outcome, detail string) NodeResult {
	st.res.Outcome, st.res.Detail = o, detail

	return st.res
}

// halt ends the step at a safe point (where) because Stop said so: the node is left as
// it is, and the detail says what was done and why it stopped. A node drained for a
// disruption that will not come now is uncordoned back, as after a failed drain.
func (st *stepper) halt(done, where string, err error) NodeResult {
	detail := done + "stopped " + where + ": " + talos.OneLine(err)

	if st.drained {
		st.drained = false

		if uerr := st.uncordon(); uerr != nil {
			st.res.Cordoned = true
			detail += "; drained, and it stays cordoned, the uncordon failed: " + talos.OneLine(uerr)
		} else {
			detail += "; drained, then uncordoned back"
		}
	}

	return st.outcome(Failed, detail)
}

func (st *stepper) fail(what string, err error) NodeResult {
	return st.outcome(Failed, what+": "+talos.OneLine(err))
}

func describe(mode string) string {
	switch mode {
	case "REBOOT":
		return "with a reboot"
	case "NO_REBOOT":
		return "without a reboot"
	case "STAGED":
		return "staged for the next reboot"
	case "TRY":
		return "in try mode"
	default:
		return "mode " + mode
	}
}
