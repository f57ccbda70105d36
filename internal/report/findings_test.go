package report_test

import (
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
