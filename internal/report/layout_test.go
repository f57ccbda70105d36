package report_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/report"
	"github.com/talops/talops/internal/testlab"
)

// layoutPlan is a migrated repository's plan: the control plane's labels moved to a
// KubeNodeConfig and nothing else changed; the worker's moved too, with a label changed.
func layoutPlan() *plan.Plan {
	diff := func(name, role, label string) string {
		return "--- a/" + name + ".yaml\n+++ b/" + name + ".yaml\n@@ -1,6 +1,8 @@\n version: v1alpha1\n machine:\n" +
			"-    nodeLabels:\n-        zone: a\n     type: " + role + "\n" +
			"+---\n+apiVersion: v1alpha1\n+kind: KubeNodeConfig\n+labels:\n+    zone: " + label + "\n"
	}

	return &plan.Plan{
		Cluster: "homelab", Hash: strings.Repeat("ef", 32),
		Nodes: []plan.Node{
			{
				Name: "k8s-master", Role: "controlplane", Action: plan.Update, ConfigChanged: true, LayoutOnly: true,
				Diff: diff("k8s-master", "controlplane", "a"),
				Reasons: []string{
					"layout only: the node runs every setting as before, written in other documents: applied live, no reboot, no drain",
					"out of the v1alpha1 document: machine.nodeLabels",
					"documents: KubeNodeConfig added",
				},
			},
			{
				Name: "k8s-node1", Role: "worker", Action: plan.Update, ConfigChanged: true,
				Diff:    diff("k8s-node1", "worker", "b"),
				Reasons: []string{"machine.nodeLabels changed: applied live", "KubeNodeConfig added: applied live"},
			},
		},
	}
}

func TestWritePlan_LayoutOnlyNodesAreLabelledInEveryFormat(t *testing.T) {
	for _, format := range report.PlanFormats {
		t.Run(format, func(t *testing.T) {
			var buf strings.Builder
			if err := report.WritePlan(&buf, format, layoutPlan(), nil, 2, report.PlanView{Version: "v0.0.0-test"}); err != nil {
				t.Fatal(err)
			}

			got := buf.String()
			if !strings.Contains(got, "Plan: 2 nodes — 2 updates (1 layout only)") {
				t.Errorf("%s view lacks the layout-only count in its summary", format)
			}

			label := "update (layout only)"
			if format == report.FormatJSON {
				label = `"layoutOnly": true`
			}

			if n := strings.Count(got, label); n != 1 {
				t.Errorf("%s view labels %d nodes layout only, want the control plane alone", format, n)
			}

			testlab.Golden(t, "plan-layout."+format, got, *update)
		})
	}
}
