package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/talops/talops/internal/applied"
	"github.com/talops/talops/internal/report"
)

func TestApplyViews_SayTheLockWasLostOrNotTaken(t *testing.T) {
	r := &applied.Report{
		Cluster: "homelab", PlanHash: strings.Repeat("ab", 32), Mode: "auto",
		Nodes: []applied.NodeResult{
			{Name: "k8s-node1", Role: "worker", Action: "reboot", Outcome: applied.Applied},
			{Name: "k8s-node2", Role: "worker", Action: "reboot", Outcome: applied.NotAttempted},
		},
		Stopped: "the apply lock of cluster homelab was taken over by bob@laptop #0a0b0c0d while held",
		NoLock:  "--no-lock: the Kubernetes API did not answer (connection refused)",
	}

	var js bytes.Buffer
	if err := report.ApplyJSON(&js, r); err != nil {
		t.Fatal(err)
	}

	for name, got := range map[string]string{"text": report.ApplyText(r), "markdown": report.ApplyMarkdown(r, report.ApplyView{}), "json": js.String()} {
		for _, want := range []string{"taken over by bob@laptop #0a0b0c0d while held", "--no-lock: the Kubernetes API did not answer (connection refused)"} {
			if !strings.Contains(got, want) {
				t.Errorf("the %s view lacks %q:\n%s", name, want, got)
			}
		}
	}
}
