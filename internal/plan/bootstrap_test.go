package plan_test

import (
	"context"
	"slices"
	"testing"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/configloader"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/mask"
	"github.com/talops/talops/internal/plan"
)

func load(t *testing.T, data string) coreconfig.Provider {
	t.Helper()

	cfg, err := configloader.NewFromBytes([]byte(data))
	if err != nil {
		t.Fatal(err)
	}

	return cfg
}

func TestCompute_BootstrapOnlyWhenEveryControlPlaneIsNew(t *testing.T) {
	cfg := func(role cluster.Role) plan.NodeState {
		return plan.NodeState{Role: role, Config: load(t, "version: v1alpha1\nmachine:\n  type: "+string(role)+"\n")}
	}

	named := func(name string, n plan.NodeState) plan.NodeState { n.Name = name; return n }

	cp1, cp2, w1 := named("cp1", cfg("controlplane")), named("cp2", cfg("controlplane")), named("w1", cfg("worker"))

	for _, tc := range []struct {
		name             string
		current, desired []plan.NodeState
		want             string
	}{
		{"NewClusterBootstrapsTheFirstControlPlane", nil, []plan.NodeState{w1, cp1, cp2}, "cp1"},
		{"ANewControlPlaneJoinsARunningOne", []plan.NodeState{cp1}, []plan.NodeState{cp1, cp2}, ""},
		{"ANewControlPlaneReplacingARemovedOne", []plan.NodeState{cp1}, []plan.NodeState{cp2}, ""},
		{"OnlyWorkersAreNew", []plan.NodeState{cp1}, []plan.NodeState{cp1, w1}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := plan.Compute(context.Background(), "lab", plan.State{TalosVersion: "v1.14.1", Nodes: tc.current}, plan.State{TalosVersion: "v1.14.1", Nodes: tc.desired}, mask.New())
			if err != nil {
				t.Fatal(err)
			}

			if p.Bootstrap != tc.want {
				t.Errorf("Bootstrap = %q, want %q", p.Bootstrap, tc.want)
			}

			for _, n := range p.Nodes {
				has := slices.Contains(n.Reasons, "bootstrap: etcd is started on "+n.Name)
				if has != (n.Name == tc.want) {
					t.Errorf("%s: reasons %v", n.Name, n.Reasons)
				}
			}
		})
	}
}
