// Package rollout applies a plan to the nodes: control planes one at a time, then workers,
// each behind a health gate, stopping at the first failure so that the nodes not yet
// touched stay untouched. It decides nothing the plan has not decided: the caller refuses
// plans with actions it cannot carry out before calling Run.
package rollout

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/talops/talops/internal/applied"
	"github.com/talops/talops/internal/cluster"
	checks "github.com/talops/talops/internal/health"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/talos"
)

// The result types live in internal/applied, which the views read without reaching the
// Talos adapter; these names keep the rollout's callers as they are.
type (
	// Outcome is what happened to a node.
	Outcome = applied.Outcome
	// NodeResult is what happened to one node.
	NodeResult = applied.NodeResult
	// Report is the outcome of a rollout, node by node in rollout order.
	Report = applied.Report
	// Mode is the apply mode a report was made with.
	Mode = applied.Mode
)

// Outcomes.
const (
	Applied      = applied.Applied
	DryRun       = applied.DryRun
	Skipped      = applied.Skipped
	Failed       = applied.Failed
	NotAttempted = applied.NotAttempted
)

// Outcomes lists every outcome in the order summaries count them.
var Outcomes = applied.Outcomes

// Step is one node to bring to its desired state.
type Step struct {
	Node plan.Node
	// Address is the node's address in talops.yaml.
	Address string
	// Config is the desired machine config.
	Config []byte
	// Version is the Talos version the node runs now (for a new node: the one it must
	// answer with once configured, "" for any).
	Version string
	// Upgrade is set when the node's installer image changes: talops upgrades it first.
	Upgrade *Target
	// Bootstrap is set on the first control plane of a new cluster: once it runs its
	// config, talops starts etcd on it.
	Bootstrap bool
	// NotSelected leaves the node as it is: apply was asked for other nodes (--nodes).
	NotSelected bool
	// DoneBefore, when set, says how the node was brought to its desired state before the
	// rollout (by the Kubernetes upgrade): it is reported applied with it, and not touched.
	DoneBefore string
	// KubeNode is the name of the node's Node object in Kubernetes, the one drained
	// ("": Node.Name).
	KubeNode string
	// Regate is set on the node a rollout of the same plan stopped at, when it already
	// runs its desired config: it is gated again (and uncordoned) instead of skipped.
	Regate bool
}

// controlPlane says whether the step's node is a control plane.
func (s Step) controlPlane() bool { return s.Node.Role == cluster.RoleControlPlane }

// Target is the image a node is upgraded to and what it must report once it runs it.
type Target struct {
	// Image is the installer image reference.
	Image string
	// Version is the Talos version tag the node must answer with after the upgrade.
	Version string
	// SchematicID is the schematic the node must report ("" for an image without one).
	SchematicID string
}

// Options tune a rollout.
type Options struct {
	Mode   talos.Mode
	DryRun bool
	// Parallel is how many workers change at once (control planes: always one).
	Parallel int
	// CallTimeout bounds each call to a node.
	CallTimeout time.Duration
	// GateTimeout bounds the wait for a node to come back healthy.
	GateTimeout time.Duration
	// GateInterval is the pause between health checks.
	GateInterval time.Duration
	// UpgradeTimeout bounds the pull of an installer and its install.
	UpgradeTimeout time.Duration
	// Now reads the clock, for the time an interrupted wait took (nil: time.Now).
	Now func() time.Time
	// Snapshot, when set, saves an etcd snapshot streamed from a control plane and says
	// where: it is taken once, before the first control plane changes, and a failure stops
	// the rollout with that node untouched.
	Snapshot func(ctx context.Context, n talos.Node) (string, error)
	// Progress, when set, gets each step of a node as it happens ("[2/5] k8s-node1:
	// rebooting"), and the lines of no node, for a person watching a long rollout (the
	// action groups a node's steps).
	Progress func(p Progress)
	// Kube, when set, drains a node before it reboots or is upgraded and uncordons it
	// once its health gate passes (nil: nodes are rebooted without a drain).
	Kube Kube
	// NoDrain reboots and upgrades nodes without a drain, even with Kube (--no-drain);
	// DrainTimeout bounds a node's drain (0: DefaultDrainTimeout).
	NoDrain      bool
	DrainTimeout time.Duration
	// ResetVM, when set (--proxmox-reset), resets the VM of a node (by its name) that did
	// not come back healthy after a reboot or an upgrade; the node then gets one more gate.
	ResetVM func(ctx context.Context, node string) error
	// Rollback rolls a node whose health gate fails after an upgrade back to the Talos it
	// ran before (--rollback): the node fails all the same, and the rollout stops there.
	Rollback bool
	// Stop, when set, is asked before each node that changes starts: an error stops the
	// rollout there (the apply lock was lost), the nodes left not attempted and the report
	// saying why. It is asked again at the safe points inside a node's step (after its
	// drain, before anything reaches it; after an upgrade, before the config): there the
	// node fails, its detail saying what was done and where it stopped.
	Stop func() error
	// Health, read by HealthReader, must pass before each node that changes and after the
	// last one: a check that does not pass within its timeout stops the rollout there.
	Health       []checks.Check
	HealthReader HealthReader
	// Heartbeat is how often a wait that goes on (a reboot, an install, etcd) says so on
	// the node's progress line (0: DefaultHeartbeat).
	Heartbeat time.Duration
	// Alerts, when set, is the Alertmanager whose firing alerts hold the rollout before
	// each node that changes, up to GateTimeout; with Silence, each such node is silenced
	// there while its step runs, the silence ending SilenceFor ahead (0:
	// DefaultSilenceFor) and renewed, and expired once the step ends, failed or not.
	// SilenceComment is the silences' comment (Run's default names the cluster and plan).
	Alerts         Alerts
	Silence        bool
	SilenceFor     time.Duration
	SilenceComment string

	// waiting is the progress of the node whose step is running (set per node by step).
	waiting func(string)
}

// oneAtATime serializes say: workers change in parallel, their lines go out one at a time.
func oneAtATime[T any](say func(T)) func(T) {
	if say == nil {
		return nil
	}

	var mu sync.Mutex

	return func(line T) {
		mu.Lock()
		defer mu.Unlock()

		say(line)
	}
}

// sayer is the progress of the node at position i of n.
func (o Options) sayer(i, n int, name string) func(string) {
	if o.Progress == nil {
		return func(string) {}
	}

	return func(what string) { o.Progress(Progress{Index: i + 1, Total: n, Node: name, What: what}) }
}

func (o Options) now() time.Time {
	if o.Now == nil {
		return time.Now()
	}

	return o.Now()
}

// Order puts the removals of nodes that do not answer first (etcd is asked for its health
// before every control-plane change, and a dead member fails it), then control planes, then
// workers, each in plan order, then the other removals: a new control plane joins before an
// old one leaves.
func Order(steps []Step) []Step {
	var dead, cps, workers, removals []Step

	for _, s := range steps {
		switch {
		case s.Node.Action == plan.Remove && s.Node.Unreachable:
			dead = append(dead, s)
		case s.Node.Action == plan.Remove:
			removals = append(removals, s)
		case s.controlPlane():
			cps = append(cps, s)
		default:
			workers = append(workers, s)
		}
	}

	return slices.Concat(dead, cps, workers, removals)
}

// Run rolls the steps out in Order. Any failure stops it: nodes not started yet are
// reported as not attempted; workers already changing in parallel finish.
func Run(ctx context.Context, d talos.Dialer, cluster, hash string, steps []Step, o Options) *Report {
	steps = Order(steps)

	o.Progress = oneAtATime(o.Progress)
	if o.SilenceComment == "" {
		o.SilenceComment = "talops apply of cluster " + cluster + ", plan " + hash
	}

	r := &Report{Cluster: cluster, PlanHash: hash, Mode: Mode(o.Mode), DryRun: o.DryRun, Nodes: make([]NodeResult, len(steps))}

	// The control planes in etcd: the running ones, then each new one once it joined.
	members := notAttempted(r, steps)

	var (
		stopped atomic.Bool
		wg      sync.WaitGroup
	)

	parallel := max(o.Parallel, 1)
	slots := make(chan struct{}, parallel)

	for i, s := range steps {
		// One control plane or removal at a time, and none while anything else is changing.
		alone := s.controlPlane() || s.Node.Action == plan.Remove
		if alone {
			wg.Wait()
		}

		slots <- struct{}{}

		if stopped.Load() || ctx.Err() != nil {
			<-slots

			break
		}

		if err := o.mayStart(ctx, s); err != nil {
			<-slots

			r.Stopped = err.Error()

			break
		}

		wg.Go(func() {
			defer func() { <-slots }()

			runStep(ctx, d, s, o, slices.Clone(members), r, i, len(steps), &stopped)
		})

		if alone {
			wg.Wait()

			members = membersAfter(members, s, r.Nodes[i])
		}
	}

	wg.Wait()

	// After the last node: the cluster is left healthy, or the report says it is not.
	if r.Stopped == "" && !stopped.Load() && ctx.Err() == nil && !o.DryRun && slices.ContainsFunc(steps, changes) {
		if err := o.checkHealth(ctx, "after the last node"); err != nil {
			r.Unhealthy = err.Error()
		}
	}

	return r
}

// runStep runs the i-th of n steps into r.Nodes[i]; its failure stops the rollout.
func runStep(ctx context.Context, d talos.Dialer, s Step, o Options, members []Step, r *Report, i, n int, stopped *atomic.Bool) {
	// A bug in one node's step must not kill the process mid-rollout without a
	// report: it fails that node and stops the rollout like any other failure.
	defer func() {
		if p := recover(); p != nil {
			r.Nodes[i].Outcome, r.Nodes[i].Detail = Failed, fmt.Sprintf("internal error: %v", p)
			stopped.Store(true)
		}
	}()

	run := step
	if s.Node.Action == plan.Remove {
		run = removeStep
	}

	say := o.sayer(i, n, s.Node.Name)

	release, err := o.silenced(ctx, s, say)
	if err != nil {
		r.Nodes[i].Outcome, r.Nodes[i].Detail = Failed, "not touched: "+err.Error()
		stopped.Store(true)

		return
	}
	defer release()

	r.Nodes[i] = run(ctx, d, s, o, members, r.Nodes[i], r, say)
	if r.Nodes[i].Outcome == Failed {
		stopped.Store(true)
	}
}

// notAttempted marks in r every step's node as not attempted yet and returns the control planes
// in etcd before the rollout.
func notAttempted(r *Report, steps []Step) []Step {
	var members []Step

	for i, s := range steps {
		r.Nodes[i] = NodeResult{Name: s.Node.Name, Role: s.Node.Role, Action: s.Node.Action, Outcome: NotAttempted}

		// One that does not answer is no member to ask: its removal comes first.
		if s.controlPlane() && s.Node.Action != plan.Create && !s.Node.Unreachable {
			members = append(members, s)
		}
	}

	return members
}

// mayStart asks, before a step that changes its node, whether the rollout must stop: Stop,
// then the health checks, then the firing alerts. A step that changes nothing (a node already in its desired
// state, one the Kubernetes upgrade brought there, one not selected) needs neither: the
// lock guards changes, and stopping before such a node would only report it not attempted.
func (o Options) mayStart(ctx context.Context, s Step) error {
	if !changes(s) {
		return nil
	}

	if err := o.stop(); err != nil {
		return err
	}

	if o.DryRun {
		return nil
	}

	if err := o.checkHealth(ctx, "before "+s.Node.Name); err != nil {
		return err
	}

	return o.checkAlerts(ctx, "before "+s.Node.Name)
}

// stop is Stop's answer (nil without Stop).
func (o Options) stop() error {
	if o.Stop == nil {
		return nil
	}

	return o.Stop()
}

// membersAfter is the control planes in etcd once s, run alone, ended as res: a new control
// plane joined, a removed node left.
func membersAfter(members []Step, s Step, res NodeResult) []Step {
	if s.controlPlane() && s.Node.Action == plan.Create && res.Outcome == Applied {
		members = append(members, s)
	}

	if s.Node.Action == plan.Remove && res.Outcome == Applied {
		members = slices.DeleteFunc(members, func(m Step) bool { return m.Node.Name == s.Node.Name })
	}

	return members
}

// changes says whether a step changes its node (health checks come before those only).
func changes(s Step) bool {
	return (s.Node.Action != plan.Noop || s.Regate) && !s.NotSelected && s.DoneBefore == ""
}
