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
		{nodes(plan.Create, plan.Create, plan.Remove, plan.Remove, plan.Update, plan.Update), "Plan: 6 nodes — 2 creates, 2 updates, 2 removes"},
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
