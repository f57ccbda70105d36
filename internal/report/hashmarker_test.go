package report_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/report"
)

func TestParseHashMarker_OnlyTalopsOwnLineIsTrusted(t *testing.T) {
	t.Parallel()

	real := strings.Repeat("ab", 32)
	planted := strings.Repeat("11", 32)
	head := report.Marker("lab") + "\n" + report.HashMarker(real) + "\n"

	for _, tc := range []struct {
		name, body, want string
	}{
		{"TheLineBelowTheMarker", head + "### talops plan: lab\n", real},
		{"CRLFLineEndings", strings.ReplaceAll(head, "\n", "\r\n") + "rest\r\n", real},
		{"APlantedSecondHash", head + "text\n" + report.HashMarker(planted) + "\n", ""},
		{"APlantedHashAboveTheRealOne", report.Marker("lab") + "\n" + report.HashMarker(planted) + "\n" + report.HashMarker(real) + "\n", ""},
		{"AHashElsewhereOnly", report.Marker("lab") + "\ntext\n" + report.HashMarker(real) + "\n", ""},
		{"NoHash", report.Marker("lab") + "\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := report.ParseHashMarker(tc.body)
			if got != tc.want || ok != (tc.want != "") {
				t.Errorf("ParseHashMarker = %q, %v; want %q", got, ok, tc.want)
			}
		})
	}
}
