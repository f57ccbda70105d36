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
			fmt.Fprintf(&d, "+    key%d: value number %d of a long diff line\n", j, j)
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
