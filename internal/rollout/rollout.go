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
	// Version is the Talos version the node must answer with after the apply.
	Version string
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

// Report is the outcome of a rollout, node by node in rollout order.
type Report struct {
	Cluster  string       `json:"cluster"`
	PlanHash string       `json:"planHash"`
	Mode     talos.Mode   `json:"mode"`
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

	r := &Report{Cluster: cluster, PlanHash: hash, Mode: o.Mode, DryRun: o.DryRun, Nodes: make([]NodeResult, len(steps))}
	for i, s := range steps {
		r.Nodes[i] = NodeResult{Name: s.Node.Name, Role: s.Node.Role, Action: s.Node.Action, Outcome: NotAttempted}
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

			r.Nodes[i] = step(ctx, d, s, o, r.Nodes[i])
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

// step brings one node to its desired state and waits until it is healthy again.
func step(ctx context.Context, d talos.Dialer, s Step, o Options, res NodeResult) NodeResult {
	if s.Node.Action == plan.Noop {
		res.Outcome, res.Detail = Skipped, "already in the desired state"

		return res
	}

	fail := func(what string, err error) NodeResult {
		res.Outcome, res.Detail = Failed, what+": "+talos.OneLine(err)

		return res
	}

	before, err := check(ctx, d, s, o, "")
	if err != nil {
		return fail("not healthy before the apply", err)
	}

	n, err := d.Dial(ctx, s.Address)
	if err != nil {
		return fail("connect", err)
	}
	defer n.Close() //nolint:errcheck // the calls' errors matter

	cctx, cancel := context.WithTimeout(ctx, o.CallTimeout)
	applied, err := n.Apply(cctx, s.Config, o.Mode, o.DryRun)

	cancel()

	if err != nil {
		return fail("apply the config", err)
	}

	if o.DryRun {
		res.Outcome, res.Detail = DryRun, "the node accepts the config ("+describe(applied.Mode)+")"
		if s.Node.NeedsReboot && !applied.Rebooting && o.Mode == talos.ModeAuto {
			res.Detail += "; talops would reboot it"
		}

		return res
	}

	res.Rebooted = applied.Rebooting

	// From Talos 1.14 the node never reboots on apply: talops reboots it where the plan
	// says the change needs one.
	if s.Node.NeedsReboot && !applied.Rebooting && o.Mode == talos.ModeAuto {
		cctx, cancel := context.WithTimeout(ctx, o.CallTimeout)
		err := n.Reboot(cctx)

		cancel()

		if err != nil {
			return fail("config applied ("+describe(applied.Mode)+"), then the reboot", err)
		}

		res.Rebooted = true
	}

	bootBefore := ""
	if res.Rebooted {
		bootBefore = before
	}

	if _, err := check(ctx, d, s, o, bootBefore); err != nil {
		return fail("config applied ("+describe(applied.Mode)+"), then the health gate", err)
	}

	res.Outcome = Applied

	switch {
	case o.Mode == talos.ModeStaged:
		res.Detail = "staged: takes effect on the node's next reboot"
	case o.Mode == talos.ModeTry:
		res.Detail = fmt.Sprintf("applied in try mode: the node rolls it back after %s", talos.TryTimeout)
	case res.Rebooted:
		res.Detail = "applied, rebooted, healthy"
	case s.Node.NeedsReboot:
		res.Detail = "applied without a reboot (--mode " + string(o.Mode) + "): the change takes effect on the next reboot"
	default:
		res.Detail = "applied live, healthy"
	}

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

// check waits until the node answers with the expected version, is running and ready and,
// when bootBefore is set, has booted again. It returns the node's boot ID.
func check(ctx context.Context, d talos.Dialer, s Step, o Options, bootBefore string) (string, error) {
	gctx, cancel := context.WithTimeout(ctx, o.GateTimeout)
	defer cancel()

	var last error

	for {
		id, err := healthy(gctx, d, s, o, bootBefore)
		if err == nil {
			return id, nil
		}

		last = err

		select {
		case <-gctx.Done():
			return "", fmt.Errorf("after %s: %w", o.GateTimeout, last)
		case <-time.After(o.GateInterval):
		}
	}
}

var errSameBoot = errors.New("the node has not rebooted yet")

func healthy(ctx context.Context, d talos.Dialer, s Step, o Options, bootBefore string) (string, error) {
	cctx, cancel := context.WithTimeout(ctx, o.CallTimeout)
	defer cancel()

	n, err := d.Dial(cctx, s.Address)
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

	if v != s.Version {
		return "", fmt.Errorf("the node runs Talos %s, want %s", v, s.Version)
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
