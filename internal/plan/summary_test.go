package plan_test

import (
	"testing"

	"github.com/talops/talops/internal/plan"
)

func TestSummary_CountsReadAsEnglish(t *testing.T) {
	nodes := func(actions ...plan.Action) *plan.Plan {
		p := &plan.Plan{}
		for i, a := range actions {
			p.Nodes = append(p.Nodes, plan.Node{Name: string(rune('a' + i)), Action: a})
		}

		return p
	}

	for _, tc := range []struct {
		plan *plan.Plan
		want string
	}{
		{nodes(plan.Reboot, plan.Reboot, plan.Update, plan.Noop), "Plan: 4 nodes — 2 reboots, 1 update, 1 unchanged"},
		{nodes(plan.Create, plan.Create, plan.Remove, plan.Remove, plan.Update, plan.Update), "Plan: 6 nodes — 2 creates, 2 updates, 2 removes; apply needs --allow-remove"},
		{nodes(plan.Noop), "Plan: 1 node — no changes"},
	} {
		if got := tc.plan.Summary(); got != tc.want {
			t.Errorf("summary = %q, want %q", got, tc.want)
		}
	}
}

func TestPlural_OneIsSingularEveryOtherCountPlural(t *testing.T) {
	t.Parallel()

	for n, want := range map[int]string{0: "0 control planes", 1: "1 control plane", 2: "2 control planes"} {
		if got := plan.Plural(n, "control plane"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestSummary_RefusedPlanSaysRefusedFirst(t *testing.T) {
	t.Parallel()

	k8s := &plan.Plan{
		Nodes: []plan.Node{{Name: "a", Action: plan.Update}, {Name: "b", Action: plan.Update}},
		Kubernetes: &plan.KubernetesUpgrade{
			From: "v1.35.2", To: "v1.36.4",
			Refused: []string{"node b runs Talos v1.11.5, which does not support Kubernetes v1.36.4: upgrade Talos first"},
		},
	}
	down := &plan.Plan{Nodes: []plan.Node{{Name: "a", Action: plan.Unknown}, {Name: "b", Action: plan.Unknown}}}

	for _, tc := range []struct {
		name string
		plan *plan.Plan
		want string
	}{
		{"a refused Kubernetes upgrade", k8s, "Plan refused: the Kubernetes upgrade v1.35.2 → v1.36.4 cannot be applied as planned (2 nodes — 2 updates)"},
		{"every node unreadable", down, "Plan refused: no node's current state could be read (2 nodes — 2 unreachable)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			if got := tc.plan.Summary(); got != tc.want {
				t.Errorf("summary = %q\nwant      %q", got, tc.want)
			}

			if len(tc.plan.Refusals()) == 0 {
				t.Error("no refusal")
			}
		})
	}
}

func TestSummary_SomeNodesUnreadableIsNoRefusal(t *testing.T) {
	t.Parallel()

	p := &plan.Plan{Nodes: []plan.Node{{Name: "a", Action: plan.Unknown}, {Name: "b", Action: plan.Noop}}}

	if got, want := p.Summary(), "Plan: 2 nodes — 1 unreachable, 1 unchanged"; got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}

	if r := p.Refusals(); len(r) != 0 {
		t.Errorf("refusals = %q", r)
	}
}
