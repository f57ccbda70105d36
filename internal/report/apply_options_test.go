package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/talops/talops/internal/applied"
	"github.com/talops/talops/internal/report"
)

// Every view of a report says which options changed what the apply did, and whether the
// reviewed talops.yaml declared each or only the command line gave it.
func TestApplyViews_RecordTheOptionsAndWhereEachCameFrom(t *testing.T) {
	r := &applied.Report{
		Cluster: "homelab", PlanHash: strings.Repeat("ab", 32), Mode: "auto",
		Nodes: []applied.NodeResult{{Name: "k8s-node1", Role: "worker", Action: "reboot", Outcome: applied.Applied}},
		Options: []applied.Option{
			{Flag: "--no-drain", Key: "drain: false", Given: true, Declared: true},
			{Flag: "--ignore-window", Key: "ignoreWindow: true", Declared: true},
			{Flag: "--no-lock", Key: "lock: false", Given: true},
			{Flag: "--nodes k8s-node1", Given: true},
		},
	}

	lines := []string{
		"option --no-drain: given, and declared in talops.yaml (apply.drain: false)",
		"option --ignore-window: declared in talops.yaml (apply.ignoreWindow: true)",
		"option --no-lock: given, not declared in talops.yaml (no reviewed plan was enforced)",
		"option --nodes k8s-node1: given",
	}

	if got, want := report.ApplyText(r), strings.Join(lines, "\n"); !strings.Contains(got, want) {
		t.Errorf("the text view\n%s\nlacks\n%s", got, want)
	}

	md := report.ApplyMarkdown(r, report.ApplyView{})
	for _, l := range lines {
		if !strings.Contains(md, l) {
			t.Errorf("the markdown view lacks %q:\n%s", l, md)
		}
	}

	var js bytes.Buffer
	if err := report.ApplyJSON(&js, r); err != nil {
		t.Fatal(err)
	}

	want := `"options": [
    {
      "flag": "--no-drain",
      "key": "drain: false",
      "given": true,
      "declared": true
    },`
	if !strings.Contains(js.String(), want) {
		t.Errorf("the JSON view\n%s\nlacks\n%s", js.String(), want)
	}
}
