package plan_test

import (
	"context"
	"testing"

	"github.com/talops/talops/internal/mask"
	"github.com/talops/talops/internal/plan"
)

func TestCompute_ARemovedNodeSaysWhatApplyDoesAndWhereItWasFound(t *testing.T) {
	cp := plan.NodeState{Name: "cp1", Role: "controlplane", Config: load(t, "version: v1alpha1\nmachine:\n  type: controlplane\n")}

	for _, tc := range []struct {
		name    string
		gone    plan.NodeState
		want    string
		changed bool
	}{
		{
			"RemovedFromTalopsYAML",
			plan.NodeState{Name: "cp2", Role: "controlplane", Config: cp.Config},
			"node removed from talops.yaml: apply --allow-remove drains it, resets it (it leaves etcd first) and deletes its Kubernetes Node, after every other change",
			true,
		},
		{
			"FoundRunningButNotInTalopsYAML",
			plan.NodeState{Name: "w9", Role: "worker", Found: "in the Kubernetes nodes", Address: "10.0.0.9"},
			"node runs in the cluster (in the Kubernetes nodes) but is not in talops.yaml: apply --allow-remove drains it, resets it and deletes its Kubernetes Node, after every other change",
			false,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := plan.Compute(context.Background(), "lab", plan.State{Nodes: []plan.NodeState{cp, tc.gone}}, plan.State{Nodes: []plan.NodeState{cp}}, mask.New())
			if err != nil {
				t.Fatal(err)
			}

			n := p.Nodes[1]
			if n.Action != plan.Remove || len(n.Reasons) != 1 || n.Reasons[0] != tc.want || n.ConfigChanged != tc.changed {
				t.Errorf("planned %+v, want remove because %q", n, tc.want)
			}
		})
	}
}
