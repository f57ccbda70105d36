package report_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/report"
	"github.com/talops/talops/internal/testlab"
)

// boundPlan widens the maintenance windows, sets another machine token in a patch, declares
// apply options, and holds a health check whose expression ends a line in a CEL comment.
func boundPlan() *plan.Plan {
	return &plan.Plan{
		Cluster: "homelab", Hash: strings.Repeat("ef", 32),
		Nodes: []plan.Node{
			{Name: "k8s-node1", Role: "worker", Action: plan.Update, ConfigChanged: true, Reasons: []string{"machine.token changed: applied live"}},
		},
		Maintenance:         &plan.MaintenanceChange{From: "mon-fri 22:00 for 4h (Europe/Berlin)", To: "every day 00:00 for 168h (UTC)"},
		SecretValuesChanged: []string{"patches/common.yaml"},
		ApplyOptions:        []string{"allowRemove: true: apply removes the nodes a plan removes (drain, reset, delete their Kubernetes Node)", "drain: false: nodes reboot and upgrade without a drain"},
		HealthChecks: []string{
			`nodes: Node (v1), object.status.conditions.exists(c, c.type == "Ready"), within 5m0s`,
			"ceph: CephCluster rook-ceph/rook-ceph (ceph.rook.io/v1), within 5m0s, expression:\nobject.status.ceph.health == \"HEALTH_OK\"  // strict\n  || true",
		},
		Alerts: []string{
			`Alertmanager http://am.monitoring:9093: alerts matching severity="critical", neither silenced nor inhibited, hold the rollout`,
			`each node silenced while it changes: instance=~"<address>(:.*)?", node="<Kubernetes node>"`,
		},
	}
}

// A plan shows what its hash binds beside the diffs: the expressions as written, line
// breaks and spaces kept, a changed maintenance section, and the file of a changed secret
// value, never the value.
func TestWritePlan_ShowsWhatTheHashBinds(t *testing.T) {
	for _, format := range report.PlanFormats {
		t.Run(format, func(t *testing.T) {
			var buf strings.Builder
			if err := report.WritePlan(&buf, format, boundPlan(), nil, 1, report.PlanView{Version: "v0.0.0-test"}); err != nil {
				t.Fatal(err)
			}

			testlab.Golden(t, "plan-bound."+format, buf.String(), *update)
		})
	}
}

// Removing the maintenance section reads as what it means.
func TestWritePlan_AMaintenanceSectionRemovedReadsAnyTime(t *testing.T) {
	p := &plan.Plan{Cluster: "homelab", Hash: strings.Repeat("ef", 32), Maintenance: &plan.MaintenanceChange{From: "sat 02:00 for 4h (UTC)"}}

	got := report.PlanText(p, nil, 0, false)
	if want := "~ maintenance windows: sat 02:00 for 4h (UTC) → none: apply may run at any time\n"; !strings.Contains(got, want) {
		t.Errorf("text plan:\n%s\nlacks %q", got, want)
	}
}
