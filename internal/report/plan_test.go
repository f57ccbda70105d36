package report_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/report"
)

func hugePlan(nodes, lines int) *plan.Plan {
	p := &plan.Plan{Cluster: "big", Hash: strings.Repeat("ab", 32)}

	for i := range nodes {
		var d strings.Builder

		d.WriteString("--- a/n.yaml\n+++ b/n.yaml\n@@ -1,1 +1,1 @@\n")

		for j := range lines {
			// Each node's diff is its own (identical ones are shown once).
			fmt.Fprintf(&d, "+    key%d: value number %d of a long diff line of node %d\n", j, j, i)
		}

		p.Nodes = append(p.Nodes, plan.Node{Name: fmt.Sprintf("node-%02d", i), Role: "worker", Action: plan.Update, Reasons: []string{"machine.sysctls changed: applied live"}, Diff: d.String(), ConfigChanged: true})
	}

	return p
}

func TestPlanMarkdown_HugeDiffsStayUnderTheCommentLimit(t *testing.T) {
	for _, tc := range []struct{ nodes, lines int }{{1, 20000}, {50, 2000}, {400, 50}} {
		t.Run(fmt.Sprintf("%dx%d", tc.nodes, tc.lines), func(t *testing.T) {
			p := hugePlan(tc.nodes, tc.lines)

			fs := make([]finding.Finding, 300)
			for i := range fs {
				fs[i] = finding.Finding{Severity: finding.Warning, Code: "config.warning", Message: strings.Repeat("long message ", 10)}
			}

			s, err := report.PlanMarkdown(p, fs, tc.nodes, report.PlanView{})
			if err != nil {
				t.Fatal(err)
			}

			if len(s) >= report.CommentLimit {
				t.Fatalf("comment is %d characters", len(s))
			}

			for _, want := range []string{report.Marker("big"), report.HashMarker(p.Hash), p.Summary()} {
				if !strings.Contains(s, want) {
					t.Errorf("comment lacks %q", want)
				}
			}

			if tc.nodes*tc.lines > 10000 && !strings.Contains(s, "the job summary") {
				t.Error("no pointer to the job summary where diffs were cut")
			}
		})
	}
}

func TestPlanMarkdown_SmallPlanIsNotCut(t *testing.T) {
	p := hugePlan(2, 10)

	s, err := report.PlanMarkdown(p, nil, 2, report.PlanView{})
	if err != nil {
		t.Fatal(err)
	}

	if strings.Contains(s, "cut here") || strings.Count(s, "value number") != 20 || !strings.Contains(s, "<details open>") {
		t.Errorf("small plan rendered wrongly:\n%s", s)
	}
}

// TestPlanMarkdown_SameChangeOnManyNodesIsShownOnceAndFolded: a change every worker makes
// is one details block naming them, a new node's whole config starts folded, and past a few
// changes nothing starts open.
func TestPlanMarkdown_SameChangeOnManyNodesIsShownOnceAndFolded(t *testing.T) {
	t.Parallel()

	diff := "--- a/n.yaml\n+++ b/n.yaml\n@@ -1,1 +1,2 @@\n+    net.core.somaxconn: \"65535\"\n"
	same := func(name string) plan.Node {
		return plan.Node{Name: name, Role: "worker", Action: plan.Update, Reasons: []string{"machine.sysctls changed: applied live"}, Diff: diff, ConfigChanged: true}
	}

	p := &plan.Plan{Cluster: "lab", Hash: strings.Repeat("ab", 32), Nodes: []plan.Node{
		same("w1"), same("w2"),
		{Name: "cp1", Role: "controlplane", Action: plan.Update, Reasons: []string{"machine.sysctls changed: applied live"}, Diff: diff, ConfigChanged: true},
		same("w3"), same("w4"),
	}}

	s, err := report.PlanMarkdown(p, nil, 5, report.PlanView{})
	if err != nil {
		t.Fatal(err)
	}

	if got := strings.Count(s, "somaxconn"); got != 2 {
		t.Errorf("the shared diff is shown %d times, want twice (workers once, the control plane once):\n%s", got, s)
	}

	if !strings.Contains(s, "<details><summary><b>w1, w2, w3, w4</b> (worker): update, the same change on 4 nodes</summary>") {
		t.Errorf("no grouped details for the workers:\n%s", s)
	}

	if !strings.Contains(s, "<details><summary><b>cp1</b> (controlplane): update</summary>") {
		t.Errorf("past %d changed nodes every details block starts folded:\n%s", 3, s)
	}

	p.Nodes = append(p.Nodes, plan.Node{Name: "w5", Role: "worker", Action: plan.Create, Diff: diff, ConfigChanged: true},
		plan.Node{Name: "w6", Role: "worker", Action: plan.Update, Diff: "other\n", ConfigChanged: true},
		plan.Node{Name: "w7", Role: "worker", Action: plan.Update, Diff: "another\n", ConfigChanged: true})

	if s, err = report.PlanMarkdown(p, nil, 8, report.PlanView{}); err != nil {
		t.Fatal(err)
	}

	if strings.Contains(s, "<details open>") {
		t.Errorf("past %d changed nodes every details block starts folded:\n%s", 3, s)
	}

	if !strings.Contains(s, "<details><summary><b>w5</b> (worker): create</summary>") {
		t.Errorf("a new node is not grouped and starts folded:\n%s", s)
	}
}

func TestPlanMarkdown_FenceOutgrowsBackticksInTheDiff(t *testing.T) {
	p := hugePlan(1, 1)
	p.Nodes[0].Diff += "+    content: |\n+      ```sh\n+      ````\n"

	s, err := report.PlanMarkdown(p, nil, 1, report.PlanView{})
	if err != nil {
		t.Fatal(err)
	}

	if !strings.Contains(s, "`````diff\n") || !strings.Contains(s, "\n`````\n") {
		t.Errorf("fence did not adapt:\n%s", s)
	}
}

func TestPlanText_ColourOnlyWhenAsked(t *testing.T) {
	p := hugePlan(1, 1)

	if s := report.PlanText(p, nil, 1, false); strings.Contains(s, "\x1b[") {
		t.Error("colour without a terminal")
	}

	if s := report.PlanText(p, nil, 1, true); !strings.Contains(s, "\x1b[32m+    key0") {
		t.Errorf("no colour on a terminal:\n%q", s)
	}
}

// A comment too long for its diffs lists the nodes alone; the errors still reach it, and
// the findings that do not fit are counted, not silently dropped.
func TestPlanMarkdown_CompactCommentKeepsTheErrors(t *testing.T) {
	p := hugePlan(400, 50)

	fs := []finding.Finding{{Severity: finding.Error, Code: "nvidia.driver-pin", Node: "node-01", Message: "the pin is broken"}}
	for range 600 {
		fs = append(fs, finding.Finding{Severity: finding.Warning, Code: "config.warning", Message: strings.Repeat("long message ", 10)})
	}

	s, err := report.PlanMarkdown(p, fs, 400, report.PlanView{})
	if err != nil {
		t.Fatal(err)
	}

	if len(s) >= report.CommentLimit {
		t.Fatalf("comment is %d characters", len(s))
	}

	for _, want := range []string{"`nvidia.driver-pin`", "validate failed: 400 nodes checked, 1 error, 600 warnings, 0 notes", "more findings: the job summary lists every one"} {
		if !strings.Contains(s, want) {
			t.Errorf("comment lacks %q", want)
		}
	}
}

func TestPlanJSON_LeavesThePlanAsItWas(t *testing.T) {
	p := &plan.Plan{Cluster: "c", Nodes: []plan.Node{{Name: "a", Action: plan.Noop}}}
	p.Hash = "h"

	var b strings.Builder
	if err := report.PlanJSON(&b, p, nil); err != nil {
		t.Fatal(err)
	}

	if !strings.Contains(b.String(), `"reasons": []`) {
		t.Errorf("a node without reasons is not an empty list:\n%s", b.String())
	}

	if p.Nodes[0].Reasons != nil {
		t.Errorf("writing the JSON view changed the plan: reasons = %#v", p.Nodes[0].Reasons)
	}
}

func TestPlanJSON_BlockedPlanSaysSoInTheSummary(t *testing.T) {
	for _, tc := range []struct {
		plan *plan.Plan
		want string
	}{
		{plan.BlockedPlan("c"), `"blocked": true`},
		{&plan.Plan{Cluster: "c", Hash: "h"}, `"blocked": false`},
	} {
		var b strings.Builder
		if err := report.PlanJSON(&b, tc.plan, nil); err != nil {
			t.Fatal(err)
		}

		if !strings.Contains(b.String(), tc.want) {
			t.Errorf("summary lacks %s:\n%s", tc.want, b.String())
		}
	}
}

// apply checks the reviewed plan's hash: a comment without a plan carries none.
func TestPlanMarkdown_BlockedPlanCarriesNoHash(t *testing.T) {
	s, err := report.PlanMarkdown(plan.BlockedPlan("c"), []finding.Finding{{Severity: finding.Error, Code: "config.invalid", Message: "bad"}}, 1, report.PlanView{})
	if err != nil {
		t.Fatal(err)
	}

	if strings.Contains(s, "talops:plan-hash") || !strings.HasPrefix(s, report.Marker("c")+"\n### talops plan: c\n") {
		t.Errorf("blocked plan comment:\n%s", s)
	}
}

func TestPlanText_UnknownNodeIsMarkedUnknownNotAsAnUpdate(t *testing.T) {
	p := &plan.Plan{Cluster: "lab", Nodes: []plan.Node{
		{Name: "cp1", Role: "controlplane", Action: plan.Unknown, Reasons: []string{"cannot tell: not readable over the Talos API"}},
		{Name: "w1", Role: "worker", Action: plan.Update, Reasons: []string{"machine.sysctls changed: applied live"}},
	}}

	got := report.PlanText(p, nil, 2, false)

	// "~" reads as an update in place (as in terraform): a node that could not be read
	// has no known change.
	for _, want := range []string{"? cp1 (controlplane): unknown\n", "~ w1 (worker): update\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("plan text lacks %q:\n%s", want, got)
		}
	}
}
