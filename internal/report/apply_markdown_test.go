package report_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/applied"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/report"
)

func TestApplyMarkdown_CommentOpensWithItsMarkerAndListsEveryNode(t *testing.T) {
	r := &applied.Report{
		Cluster: "homelab", PlanHash: strings.Repeat("ab", 32), Mode: "auto",
		Nodes: []applied.NodeResult{
			{Name: "k8s-master", Role: "controlplane", Action: plan.Update, Outcome: applied.Applied, Detail: "applied live, healthy"},
			{Name: "k8s-node1", Role: "worker", Action: plan.Update, Outcome: applied.Failed, Detail: "apply: a | b\nc"},
			{Name: "k8s-node2", Role: "worker", Action: plan.Noop, Outcome: applied.NotAttempted, Detail: strings.Repeat("x", 400)},
		},
	}

	got := report.ApplyMarkdown(r, report.ApplyView{Marker: true, Commit: "0123456789abcdef", Notes: []string{"the reviewed plan's hash matched"}})

	want := "<!-- talops:apply cluster=homelab -->\n" +
		"### talops apply: homelab\n\n" +
		"**Apply: homelab — 1 applied, 1 failed, 1 not attempted**\n\n" +
		"mode `auto`, plan hash `abababababab`, commit `0123456789ab`\n\n" +
		"> the reviewed plan's hash matched\n\n" +
		"| node | role | action | outcome | detail |\n|---|---|---|---|---|\n" +
		"| k8s-master | controlplane | update | applied | applied live, healthy |\n" +
		"| k8s-node1 | worker | update | failed | apply: a \\| b c |\n" +
		"| k8s-node2 | worker | noop | not attempted | " + strings.Repeat("x", 300) + "… |\n"

	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}

	if s := report.ApplyMarkdown(r, report.ApplyView{}); strings.Contains(s, "talops:apply") {
		t.Error("the summary view carries the comment's marker")
	}
}

func TestApplyViews_ShowTheNodesWarnings(t *testing.T) {
	r := &applied.Report{Cluster: "lab", Mode: "auto", Nodes: []applied.NodeResult{{
		Name: "m", Role: "controlplane", Action: plan.Update, Outcome: applied.Applied, Detail: "applied live, healthy",
		Warnings: []string{"IOMMU is not enabled, this config change might not have any effect"},
	}}}

	if got := report.ApplyText(r); !strings.Contains(got, "  m (controlplane, update): applied — applied live, healthy\n    the node warns: IOMMU is not enabled, this config change might not have any effect\n") {
		t.Errorf("text view:\n%s", got)
	}

	if got := report.ApplyMarkdown(r, report.ApplyView{}); !strings.Contains(got, "| applied live, healthy; the node warns: IOMMU is not enabled, this config change might not have any effect |") {
		t.Errorf("markdown view:\n%s", got)
	}
}
