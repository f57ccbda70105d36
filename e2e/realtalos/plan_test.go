//go:build realtalos

package realtalos

import (
	"encoding/json"
	"testing"
)

// livePlan is the part of plan's JSON view the tests judge.
type livePlan struct {
	Nodes []struct {
		Name    string   `json:"name"`
		Action  string   `json:"action"`
		Reasons []string `json:"reasons"`
		Diff    string   `json:"diff"`
	} `json:"nodes"`
}

// planLive plans the lab against the running node and returns its one node's plan.
func (l *lab) planLive(t *testing.T, talosconfig string) (action string, reasons []string, diff string) {
	t.Helper()

	r := l.talops(t, "plan", "--live", "--offline", "--talosconfig", talosconfig, "--format", "json")
	if r.code != 0 {
		t.Fatalf("plan --live: exit %d: %s", r.code, r.stderr)
	}

	var p livePlan
	if err := json.Unmarshal([]byte(r.stdout), &p); err != nil {
		t.Fatalf("plan --live --format json: %v\n%s", err, r.stdout)
	}

	if len(p.Nodes) != 1 || p.Nodes[0].Name != l.node {
		t.Fatalf("plan --live planned %+v, want the one node %s", p.Nodes, l.node)
	}

	return p.Nodes[0].Action, p.Nodes[0].Reasons, p.Nodes[0].Diff
}

func TestPlanLive_NodeRunningItsRenderIsNoop(t *testing.T) {
	t.Parallel()

	l := newLab(t, newAddress())
	l.boot(t, false)

	action, reasons, diff := l.planLive(t, l.admin)
	if action != "noop" {
		t.Errorf("plan --live of a node running its own render: %s %v\n%s", action, reasons, diff)
	}
}
