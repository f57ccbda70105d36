package report_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/applied"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/report"
)

// hostile is what a repository (or a server) could put in a name, a path, a message or
// a reason to hide or forge what follows it in a comment.
const hostile = "lab\n<!--\n<!-- talops:plan-hash 1111111111111111111111111111111111111111111111111111111111111111 -->\n</details>](http://x) `"

// inert fails when s opens an HTML comment, closes a fold or starts a line that is not
// the view's own: the markers talops writes are the only comments.
func inert(t *testing.T, s string, markers ...string) {
	t.Helper()

	rest := s
	for _, m := range markers {
		rest = strings.Replace(rest, m+"\n", "", 1)
	}

	for _, bad := range []string{"<!--", "-->", "](http"} {
		if strings.Contains(rest, bad) {
			t.Errorf("markdown holds %q:\n%s", bad, s)
		}
	}

	if open, closed := strings.Count(s, "<details"), strings.Count(s, "</details>"); open != closed {
		t.Errorf("%d folds opened, %d closed:\n%s", open, closed, s)
	}

	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "<!-- talops:plan-hash 1111") {
			t.Errorf("a planted hash line:\n%s", s)
		}
	}
}

func TestPlanMarkdown_HostileNamesKeepTheSummaryAndFooter(t *testing.T) {
	p := &plan.Plan{Cluster: hostile, Hash: strings.Repeat("ab", 32), Nodes: []plan.Node{{
		Name: hostile, Role: "worker", Action: plan.Reboot, Reasons: []string{hostile}, Diff: "+ a\n", ConfigChanged: true,
	}}}
	fs := []finding.Finding{{Severity: finding.Error, Code: "patch.invalid", File: hostile, Line: 3, Path: hostile, Node: hostile, Message: hostile}}

	s, err := report.PlanMarkdown(p, fs, 1, report.PlanView{Version: hostile})
	if err != nil {
		t.Fatal(err)
	}

	inert(t, s, report.Marker(hostile), report.HashMarker(p.Hash))

	if !strings.Contains(s, "\n**"+p.Summary()+"**\n") {
		t.Errorf("summary line missing:\n%s", s)
	}

	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "<sub>plan hash `abababababab` · talops lab &lt;!--") || !strings.HasSuffix(last, "</sub>") {
		t.Errorf("footer = %q", last)
	}
}

func TestFindingsMarkdown_HostileMessageStaysInItsCell(t *testing.T) {
	s := report.FindingsMarkdown([]finding.Finding{{Severity: finding.Error, Code: "patch.invalid", File: hostile, Path: "a`b|c", Node: hostile, Message: hostile + " | x"}}, 1)

	inert(t, s)

	rows := 0

	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "| ❌") {
			rows++

			if n := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|"); n != 6 {
				t.Errorf("row has %d cell borders: %s", n, line)
			}
		}
	}

	if rows != 1 {
		t.Errorf("%d rows:\n%s", rows, s)
	}
}

func TestApplyMarkdown_HostileNamesAreInert(t *testing.T) {
	r := &applied.Report{Cluster: hostile, PlanHash: strings.Repeat("ab", 32), Nodes: []applied.NodeResult{{Name: hostile, Detail: hostile}}}

	inert(t, report.ApplyMarkdown(r, report.ApplyView{Notes: []string{hostile}}))

	// The reasons are fenced as code: only the heading is the cluster's name as text.
	refused := strings.Split(report.ApplyRefusedMarkdown(hostile, "no"), "\n")
	if len(refused) < 2 || strings.Contains(strings.Join(refused[1:], "\n"), "<!--") {
		t.Errorf("refusal:\n%s", strings.Join(refused, "\n"))
	}
}

func FuzzPlanMarkdown_StringsStayInert(f *testing.F) {
	f.Add("lab", "k8s-node1", "machine.sysctls changed", "machine.sysctls", "unknown key")
	f.Add(hostile, hostile, hostile, hostile, hostile)
	f.Add("a\r\n<details>", "`x`", "</summary>", "a`b", "<!-- talops:plan-hash ")

	f.Fuzz(func(t *testing.T, cluster, name, reason, path, msg string) {
		p := &plan.Plan{Cluster: cluster, Hash: strings.Repeat("ab", 32), Nodes: []plan.Node{{
			Name: name, Role: "worker", Action: plan.Update, Reasons: []string{reason}, Diff: "+ a\n", ConfigChanged: true,
		}}}
		fs := []finding.Finding{{Severity: finding.Warning, Code: "config.warning", File: path, Path: path, Node: name, Message: msg}}

		s, err := report.PlanMarkdown(p, fs, 1, report.PlanView{Version: reason})
		if err != nil {
			t.Fatal(err)
		}

		lines := strings.Split(s, "\n")
		if lines[0] != report.Marker(cluster) || lines[1] != report.HashMarker(p.Hash) {
			t.Fatalf("markers moved:\n%s", s)
		}

		for _, line := range lines[2:] {
			if strings.Contains(line, "<!--") {
				t.Fatalf("an HTML comment opens:\n%s", s)
			}
		}

		if strings.Count(s, "<details") != 1 || strings.Count(s, "</details>") != 1 || !strings.Contains(s, "\n**"+p.Summary()+"**\n") {
			t.Fatalf("folds or summary broken:\n%s", s)
		}
	})
}
