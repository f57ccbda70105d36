package rollout_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/rollout"
	"github.com/talops/talops/internal/talos"
)

// healthyNodes is a narrow fake of the Talos API: every node is healthy, applies succeed,
// and onApply runs after each apply.
type healthyNodes struct {
	mu      sync.Mutex
	applied []string
	onApply func(address string)
}

func (d *healthyNodes) Dial(ctx context.Context, address string) (talos.Node, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	return &healthyNode{d: d, address: address}, nil
}

func (d *healthyNodes) DialMaintenance(context.Context, string) (talos.Maintenance, error) {
	return nil, errors.New("no node is in maintenance mode")
}

type healthyNode struct {
	talos.Node // any call not overridden here is a test failure (nil interface panics)

	d       *healthyNodes
	address string
}

func (n *healthyNode) Version(context.Context) (string, error) { return "v1.13.9", nil }
func (n *healthyNode) Status(context.Context) (talos.Status, error) {
	return talos.Status{Stage: "running", Ready: true}, nil
}
func (n *healthyNode) BootID(context.Context) (string, error) { return "boot-1", nil }
func (n *healthyNode) Close() error                           { return nil }

func (n *healthyNode) Apply(_ context.Context, _ []byte, _ talos.Mode, _ bool) (talos.Applied, error) {
	n.d.mu.Lock()
	n.d.applied = append(n.d.applied, n.address)
	n.d.mu.Unlock()

	if n.d.onApply != nil {
		n.d.onApply(n.address)
	}

	return talos.Applied{Mode: "NO_REBOOT"}, nil
}

func workers(names ...string) []rollout.Step {
	var out []rollout.Step

	for _, name := range names {
		out = append(out, rollout.Step{
			Node:    plan.Node{Name: name, Role: "worker", Action: plan.Update, ConfigChanged: true},
			Address: name, Version: "v1.13.9",
		})
	}

	return out
}

var options = rollout.Options{Mode: talos.ModeAuto, Parallel: 1, CallTimeout: time.Second, GateTimeout: time.Second, GateInterval: 10 * time.Millisecond}

func TestRun_InterruptedRolloutIsIncompleteAndLeavesTheRestUntouched(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	d := &healthyNodes{onApply: func(string) { cancel() }}

	rep := rollout.Run(ctx, d, "lab", "hash", workers("a", "b", "c"), options)

	if len(d.applied) != 1 || d.applied[0] != "a" {
		t.Fatalf("applied to %v, want only a", d.applied)
	}

	if !rep.Incomplete() {
		t.Errorf("an interrupted rollout is not reported incomplete: %+v", rep.Nodes)
	}

	if rep.Nodes[2].Outcome != rollout.NotAttempted {
		t.Errorf("c: %s, want not attempted", rep.Nodes[2].Outcome)
	}
}

func TestRun_CompleteRolloutIsNotIncomplete(t *testing.T) {
	d := &healthyNodes{}

	rep := rollout.Run(context.Background(), d, "lab", "hash", workers("a", "b"), options)

	if rep.Incomplete() || rep.Failed() || len(d.applied) != 2 {
		t.Errorf("report %+v, applied %v", rep.Nodes, d.applied)
	}
}

// panickyNodes hands out a node whose Version call panics at the address "boom".
type panickyNodes struct{ healthyNodes }

type panickyNode struct{ *healthyNode }

func (panickyNode) Version(context.Context) (string, error) { panic("unexpected state") }

func (d *panickyNodes) Dial(ctx context.Context, address string) (talos.Node, error) {
	n, err := d.healthyNodes.Dial(ctx, address)
	if err != nil || address != "boom" {
		return n, err
	}

	return panickyNode{n.(*healthyNode)}, nil
}

func TestRun_APanickingStepFailsItsNodeAndStopsTheRollout(t *testing.T) {
	d := &panickyNodes{}

	rep := rollout.Run(context.Background(), d, "lab", "hash", workers("boom", "b"), options)

	if rep.Nodes[0].Outcome != rollout.Failed || !strings.Contains(rep.Nodes[0].Detail, "internal error: unexpected state") {
		t.Errorf("boom: %+v", rep.Nodes[0])
	}

	if rep.Nodes[1].Outcome != rollout.NotAttempted || len(d.applied) != 0 {
		t.Errorf("b: %+v, applied %v", rep.Nodes[1], d.applied)
	}
}

func TestRun_ALostLockStopsTheRolloutBeforeTheNextNodeAndSaysWhy(t *testing.T) {
	var lost atomic.Value

	d := &healthyNodes{onApply: func(string) { lost.Store(errors.New("the apply lock of cluster lab was taken over by laptop")) }}

	o := options
	o.Stop = func() error {
		err, _ := lost.Load().(error)

		return err
	}

	rep := rollout.Run(context.Background(), d, "lab", "hash", workers("a", "b", "c"), o)

	if len(d.applied) != 1 || d.applied[0] != "a" {
		t.Fatalf("applied to %v, want only a", d.applied)
	}

	if rep.Nodes[0].Outcome != rollout.Applied || rep.Nodes[1].Outcome != rollout.NotAttempted || rep.Nodes[2].Outcome != rollout.NotAttempted {
		t.Errorf("outcomes %+v", rep.Nodes)
	}

	if rep.Stopped != "the apply lock of cluster lab was taken over by laptop" || !rep.Incomplete() {
		t.Errorf("stopped %q, incomplete %t", rep.Stopped, rep.Incomplete())
	}
}

// A lock lost during the Kubernetes upgrade (its kube-apiserver step takes the only API
// server away for longer than the Lease lasts) stops nothing when every node is already in
// its desired state: the lock guards changes, and each node is reported as the upgrade left it.
func TestRun_ALostLockStopsNoNodeTheKubernetesUpgradeAlreadyBroughtToItsDesiredState(t *testing.T) {
	d := &healthyNodes{}

	o := options
	o.Stop = func() error {
		return errors.New("the apply lock of cluster lab could not be renewed since 2026-12-01T12:00:00Z")
	}

	steps := workers("a", "b")
	for i := range steps {
		steps[i].DoneBefore = "Kubernetes v1.37.0 → v1.37.1, component by component without a reboot; the node runs its desired config"
	}

	rep := rollout.Run(context.Background(), d, "lab", "hash", steps, o)

	for _, n := range rep.Nodes {
		if n.Outcome != rollout.Applied || n.Detail != steps[0].DoneBefore {
			t.Errorf("%s: %s, %q; want applied by the Kubernetes upgrade", n.Name, n.Outcome, n.Detail)
		}
	}

	if rep.Stopped != "" || rep.Incomplete() || len(d.applied) != 0 {
		t.Errorf("stopped %q, incomplete %t, applied %v; want nothing stopped or applied", rep.Stopped, rep.Incomplete(), d.applied)
	}
}
