// Package rollout applies a plan to the nodes: control planes one at a time, then workers,
// each behind a health gate, stopping at the first failure so that the nodes not yet
// touched stay untouched. It decides nothing the plan has not decided: the caller refuses
// plans with actions it cannot carry out before calling Run.
package rollout

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/talos"
)

// Outcome is what happened to a node.
type Outcome string

// Outcomes.
const (
	Applied      Outcome = "applied"
	DryRun       Outcome = "dry-run"
	Skipped      Outcome = "skipped"
	Failed       Outcome = "failed"
	NotAttempted Outcome = "not attempted"
)

// Outcomes lists every outcome in the order summaries count them.
var Outcomes = []Outcome{Applied, DryRun, Skipped, Failed, NotAttempted}

// Step is one node to bring to its desired state.
type Step struct {
	Node plan.Node
	// Address is the node's address in talops.yaml.
	Address string
	// Config is the desired machine config.
	Config []byte
	// Version is the Talos version the node runs now.
	Version string
	// Upgrade is set when the node's installer image changes: talops upgrades it first.
	Upgrade *Target
}

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
}

// NodeResult is what happened to one node.
type NodeResult struct {
	Name    string      `json:"name"`
	Role    string      `json:"role"`
	Action  plan.Action `json:"action"`
	Outcome Outcome     `json:"outcome"`
	// Rebooted is true when the node rebooted (by itself or asked by talops).
	Rebooted bool `json:"rebooted"`
	// Detail says what was done or why it failed, in one line.
	Detail string `json:"detail"`
}

// Mode is the apply mode a report was made with, as its views print it.
type Mode string

// Report is the outcome of a rollout, node by node in rollout order.
type Report struct {
	Cluster  string       `json:"cluster"`
	PlanHash string       `json:"planHash"`
	Mode     Mode         `json:"mode"`
	DryRun   bool         `json:"dryRun"`
	Nodes    []NodeResult `json:"nodes"`
}

// Failed reports whether a node failed.
func (r *Report) Failed() bool {
	for _, n := range r.Nodes {
		if n.Outcome == Failed {
			return true
		}
	}

	return false
}

// Incomplete reports whether some node was not attempted: the rollout stopped (a failure,
// or an interruption such as a cancelled job) before it handled every node.
func (r *Report) Incomplete() bool {
	for _, n := range r.Nodes {
		if n.Outcome == NotAttempted {
			return true
		}
	}

	return false
}

// Count returns how many nodes had each outcome.
func (r *Report) Count() map[Outcome]int {
	out := map[Outcome]int{}
	for _, n := range r.Nodes {
		out[n.Outcome]++
	}

	return out
}

// Order puts control planes first, then workers, each in plan order.
func Order(steps []Step) []Step {
	var cps, workers []Step

	for _, s := range steps {
		if s.Node.Role == "controlplane" {
			cps = append(cps, s)
		} else {
			workers = append(workers, s)
		}
	}

	return append(cps, workers...)
}

// Run rolls the steps out in Order. Any failure stops it: nodes not started yet are
// reported as not attempted; workers already changing in parallel finish.
func Run(ctx context.Context, d talos.Dialer, cluster, hash string, steps []Step, o Options) *Report {
	steps = Order(steps)

	r := &Report{Cluster: cluster, PlanHash: hash, Mode: Mode(o.Mode), DryRun: o.DryRun, Nodes: make([]NodeResult, len(steps))}

	var members []Step

	for i, s := range steps {
		r.Nodes[i] = NodeResult{Name: s.Node.Name, Role: s.Node.Role, Action: s.Node.Action, Outcome: NotAttempted}

		if s.Node.Role == "controlplane" {
			members = append(members, s)
		}
	}

	var (
		stopped atomic.Bool
		wg      sync.WaitGroup
	)

	parallel := max(o.Parallel, 1)
	slots := make(chan struct{}, parallel)

	for i, s := range steps {
		if s.Node.Role == "controlplane" {
			// One control plane at a time, and none while anything else is changing.
			wg.Wait()
		}

		slots <- struct{}{}

		if stopped.Load() || ctx.Err() != nil {
			<-slots

			break
		}

		wg.Go(func() {
			defer func() { <-slots }()

			// A bug in one node's step must not kill the process mid-rollout without a
			// report: it fails that node and stops the rollout like any other failure.
			defer func() {
				if p := recover(); p != nil {
					r.Nodes[i].Outcome, r.Nodes[i].Detail = Failed, fmt.Sprintf("internal error: %v", p)
					stopped.Store(true)
				}
			}()

			r.Nodes[i] = step(ctx, d, s, o, members, r.Nodes[i])
			if r.Nodes[i].Outcome == Failed {
				stopped.Store(true)
			}
		})

		if s.Node.Role == "controlplane" {
			wg.Wait()
		}
	}

	wg.Wait()

	return r
}

// step brings one node to its desired state and waits until it is healthy again. On a
// control plane, etcd must be healthy before anything is touched and again after.
func step(ctx context.Context, d talos.Dialer, s Step, o Options, members []Step, res NodeResult) NodeResult {
	if s.Node.Action == plan.Noop {
		res.Outcome, res.Detail = Skipped, "already in the desired state"

		return res
	}

	fail := func(what string, err error) NodeResult {
		res.Outcome, res.Detail = Failed, what+": "+talos.OneLine(err)

		return res
	}

	controlPlane := s.Node.Role == "controlplane"

	before, err := check(ctx, d, s, o, "", s.Version)
	if err != nil {
		return fail("not healthy before the apply", err)
	}

	if controlPlane {
		if err := etcdGate(ctx, d, members, o); err != nil {
			return fail("etcd not healthy before touching this control plane", err)
		}
	}

	var upgraded string

	if s.Upgrade != nil {
		if o.DryRun {
			res.Outcome, res.Detail = DryRun, "talops would "+upgradePlan(s)
			if s.Node.ConfigChanged {
				res.Detail += ", then apply its config"
			}

			return res
		}

		if before, err = upgrade(ctx, d, s, o, before); err != nil {
			return fail("upgrade", err)
		}

		res.Rebooted = true
		upgraded = "upgraded to " + s.Upgrade.describe() + ", rebooted"
		s.Version = s.Upgrade.Version

		if !s.Node.ConfigChanged {
			return after(ctx, d, s, o, members, res, upgraded+", healthy", "upgraded ("+upgraded+"), then")
		}
	}

	done := func(what string) string {
		if upgraded == "" {
			return what
		}

		return upgraded + "; " + what
	}

	n, err := d.Dial(ctx, s.Address)
	if err != nil {
		return fail(done("connect"), err)
	}
	defer n.Close() //nolint:errcheck // the calls' errors matter

	cctx, cancel := context.WithTimeout(ctx, o.CallTimeout)
	applied, err := n.Apply(cctx, s.Config, o.Mode, o.DryRun)

	cancel()

	if err != nil {
		return fail(done("apply the config"), err)
	}

	if o.DryRun {
		res.Outcome, res.Detail = DryRun, "the node accepts the config ("+describe(applied.Mode)+")"
		if s.Node.NeedsReboot && !applied.Rebooting && o.Mode == talos.ModeAuto {
			res.Detail += "; talops would reboot it"
		}

		return res
	}

	rebooted := applied.Rebooting

	// From Talos 1.14 the node never reboots on apply: talops reboots it where the plan
	// says the change needs one.
	if s.Node.NeedsReboot && !applied.Rebooting && o.Mode == talos.ModeAuto {
		cctx, cancel := context.WithTimeout(ctx, o.CallTimeout)
		err := n.Reboot(cctx)

		cancel()

		if err != nil {
			return fail(done("config applied ("+describe(applied.Mode)+"), then the reboot"), err)
		}

		rebooted = true
	}

	res.Rebooted = res.Rebooted || rebooted

	bootBefore := ""
	if rebooted {
		bootBefore = before
	}

	if _, err := check(ctx, d, s, o, bootBefore, s.Version); err != nil {
		return fail(done("config applied ("+describe(applied.Mode)+"), then the health gate"), err)
	}

	var detail string

	switch {
	case o.Mode == talos.ModeStaged:
		detail = "staged: takes effect on the node's next reboot"
	case o.Mode == talos.ModeTry:
		detail = fmt.Sprintf("applied in try mode: the node rolls it back after %s", talos.TryTimeout)
	case rebooted:
		detail = "applied, rebooted, healthy"
	case s.Node.NeedsReboot:
		detail = "applied without a reboot (--mode " + string(o.Mode) + "): the change takes effect on the next reboot"
	default:
		detail = "applied live, healthy"
	}

	if upgraded != "" {
		detail = upgraded + "; config " + detail
	}

	return after(ctx, d, s, o, members, res, detail, done("config applied ("+describe(applied.Mode)+"), then"))
}

// after checks etcd once a control plane is back, and records the outcome.
func after(ctx context.Context, d talos.Dialer, s Step, o Options, members []Step, res NodeResult, detail, failedAfter string) NodeResult {
	if s.Node.Role == "controlplane" {
		if err := etcdGate(ctx, d, members, o); err != nil {
			res.Outcome, res.Detail = Failed, failedAfter+" etcd did not become healthy: "+talos.OneLine(err)

			return res
		}
	}

	res.Outcome, res.Detail = Applied, detail

	return res
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

// check waits until the node is running and ready, answers with version (any when "")
// and, when bootBefore is set, has booted again. It returns the node's boot ID.
func check(ctx context.Context, d talos.Dialer, s Step, o Options, bootBefore, version string) (string, error) {
	var id string

	err := poll(ctx, o, func(ctx context.Context) error {
		var err error

		id, err = healthy(ctx, d, s.Address, o, bootBefore, version)

		return err
	})

	return id, err
}

// poll calls try every GateInterval until it succeeds or GateTimeout passes; the error
// is the last one try gave before the deadline.
func poll(ctx context.Context, o Options, try func(context.Context) error) error {
	gctx, cancel := context.WithTimeout(ctx, o.GateTimeout)
	defer cancel()

	var last error

	for {
		err := try(gctx)
		if err == nil {
			return nil
		}

		// A try cut short by the deadline says less than the one before it.
		if last == nil || !deadline(err) {
			last = err
		}

		select {
		case <-gctx.Done():
			return fmt.Errorf("after %s: %w", o.GateTimeout, last)
		case <-time.After(o.GateInterval):
		}
	}
}

// deadline reports whether err is a call cut short by its context's deadline.
func deadline(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || status.Code(err) == codes.DeadlineExceeded
}

var errSameBoot = errors.New("the node has not rebooted yet")

func healthy(ctx context.Context, d talos.Dialer, address string, o Options, bootBefore, version string) (string, error) {
	cctx, cancel := context.WithTimeout(ctx, o.CallTimeout)
	defer cancel()

	n, err := d.Dial(cctx, address)
	if err != nil {
		return "", err
	}
	defer n.Close() //nolint:errcheck // read-only

	id, err := n.BootID(cctx)
	if err != nil {
		return "", fmt.Errorf("read boot ID: %w", err)
	}

	if bootBefore != "" && id == bootBefore {
		return "", errSameBoot
	}

	v, err := n.Version(cctx)
	if err != nil {
		return "", fmt.Errorf("read version: %w", err)
	}

	if version != "" && v != version {
		return "", fmt.Errorf("the node runs Talos %s, want %s", v, version)
	}

	st, err := n.Status(cctx)
	if err != nil {
		return "", fmt.Errorf("read machine status: %w", err)
	}

	if !st.Running() {
		return "", fmt.Errorf("machine stage %s, ready %t", st.Stage, st.Ready)
	}

	return id, nil
}
