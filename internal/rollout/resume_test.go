package rollout_test

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/talops/talops/internal/applied"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/rollout"
	"github.com/talops/talops/internal/talos"
)

// recoveringNodes is a node that runs its desired config and is not ready for its first
// looks, as a node whose health gate failed last time and that recovers.
type recoveringNodes struct {
	healthyNodes

	config   []byte
	notReady atomic.Int32
}

func (d *recoveringNodes) Dial(ctx context.Context, address string) (talos.Node, error) {
	return &recoveringNode{healthyNode: healthyNode{d: &d.healthyNodes, address: address}, r: d}, nil
}

type recoveringNode struct {
	healthyNode

	r *recoveringNodes
}

func (n *recoveringNode) Status(context.Context) (talos.Status, error) {
	if n.r.notReady.Add(-1) >= 0 {
		return talos.Status{Stage: "running", Ready: false}, nil
	}

	return talos.Status{Stage: "running", Ready: true}, nil
}

func (n *recoveringNode) MachineConfig(context.Context) ([]byte, error) { return n.r.config, nil }

func TestRun_TheNodeARolloutStoppedAtIsGatedAgainAndUncordonedInsteadOfSkipped(t *testing.T) {
	config := []byte("version: v1alpha1\nmachine:\n  type: worker\n")

	d := &recoveringNodes{config: config}
	d.notReady.Store(2)

	j := &journal{}

	o := options
	o.Kube = &recordingKube{j: j}

	steps := []rollout.Step{{
		Node:    plan.Node{Name: "w4", Role: "worker", Action: plan.Noop},
		Address: "w4", Version: "v1.13.9", Config: config, Regate: true,
	}}

	r := rollout.Run(context.Background(), d, "lab", "hash", steps, o)

	n := r.Nodes[0]
	if n.Outcome != applied.Applied || !strings.HasPrefix(n.Detail, "the rollout stopped here last time; it runs its desired config and is healthy, uncordoned") {
		t.Errorf("w4: %+v", n)
	}

	if len(d.applied) != 0 || !slices.Equal(j.list(), []string{"uncordon w4"}) {
		t.Errorf("applied %v, kube %v", d.applied, j.list())
	}
}

func TestRun_ANodeThatStaysUnhealthyWhenGatedAgainFailsAndStaysCordoned(t *testing.T) {
	config := []byte("version: v1alpha1\nmachine:\n  type: worker\n")

	d := &recoveringNodes{config: config}
	d.notReady.Store(1 << 30)

	j := &journal{}

	o := options
	o.Kube = &recordingKube{j: j}

	steps := append([]rollout.Step{{
		Node:    plan.Node{Name: "w1", Role: "worker", Action: plan.Noop},
		Address: "w1", Version: "v1.13.9", Config: config, Regate: true,
	}}, workers("w2")...)

	r := rollout.Run(context.Background(), d, "lab", "hash", steps, o)

	if r.Nodes[0].Outcome != applied.Failed || r.Nodes[1].Outcome != applied.NotAttempted || len(j.list()) != 0 {
		t.Errorf("nodes %+v, kube %v", r.Nodes, j.list())
	}
}
