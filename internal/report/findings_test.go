package report_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/report"
)

func TestAnnotation_EscapesPropertiesAndData(t *testing.T) {
	f := finding.Finding{
		Severity: finding.Error, Code: "config.invalid", Node: "n1",
		File: "a,b:c.yaml", Line: 3, Path: "machine.x",
		Message: "100% wrong\nsecond line",
	}

	want := "::error file=a%2Cb%3Ac.yaml,line=3,title=config.invalid (n1)::machine.x: 100%25 wrong%0Asecond line"
	if got := report.Annotation(f); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestAnnotation_SeverityPicksTheCommand(t *testing.T) {
	for sev, cmd := range map[finding.Severity]string{finding.Error: "::error ", finding.Warning: "::warning ", finding.Info: "::notice "} {
		if got := report.Annotation(finding.Finding{Severity: sev, Code: "x"}); got[:len(cmd)] != cmd {
			t.Errorf("%s: %s", sev, got)
		}
	}
}

// TestAnnotations_OnePerPlaceNamingTheNodes: a finding every worker shares (one patch) is
// one annotation naming them all, while findings at other places, or saying other things,
// stay their own.
func TestAnnotations_OnePerPlaceNamingTheNodes(t *testing.T) {
	t.Parallel()

	shared := func(node string) finding.Finding {
		return finding.Finding{Severity: finding.Error, Code: "patch.invalid", Message: "unknown key", File: "patches/worker.yaml", Line: 3, Path: "machine.sysctl", Node: node}
	}

	fs := []finding.Finding{shared("w1"), shared("w2"), shared("w3"), shared("w2")}
	other := shared("w1")
	other.Line = 9
	fs = append(fs, other, finding.Finding{Severity: finding.Warning, Code: "secrets.throwaway", Message: "throwaway"})

	got := report.Annotations(fs)
	want := []string{
		"::error file=patches/worker.yaml,line=3,title=patch.invalid (w1%2C w2%2C w3)::machine.sysctl: unknown key",
		"::error file=patches/worker.yaml,line=9,title=patch.invalid (w1)::machine.sysctl: unknown key",
		"::warning title=secrets.throwaway::throwaway",
	}

	if !slices.Equal(got, want) {
		t.Errorf("annotations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
