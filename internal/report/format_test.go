package report_test

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/talops/talops/internal/applied"
	"github.com/talops/talops/internal/report"
)

// Each command's formats are its views', listed in one order.
func TestFormats_EachCommandListsItsViewsInOneOrder(t *testing.T) {
	for _, tc := range []struct {
		name      string
		got, want []string
	}{
		{"validate", report.FindingFormats, []string{"text", "json", "github"}},
		{"plan", report.PlanFormats, []string{"text", "json", "markdown"}},
		{"apply", report.ApplyFormats, []string{"text", "json"}},
		{"versions", report.VersionFormats, []string{"text", "json", "markdown"}},
		{"schematics", report.SchematicFormats, []string{"text", "json", "markdown"}},
		{"proxmox", report.ProxmoxFormats, []string{"text", "json"}},
	} {
		if !slices.Equal(tc.got, tc.want) {
			t.Errorf("%s formats %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}

// A format a view does not have is an error that lists the ones it has; nothing is
// written in another format instead.
func TestWrite_AFormatTheViewDoesNotHaveIsAnErrorNotText(t *testing.T) {
	var b bytes.Buffer

	err := report.WriteApply(&b, "markdown", &applied.Report{Cluster: "lab"})

	var unknown *report.UnknownFormatError
	if !errors.As(err, &unknown) || err.Error() != `unknown format "markdown" (one of text, json)` {
		t.Fatalf("err = %v", err)
	}

	if b.Len() > 0 {
		t.Errorf("wrote %q", b.String())
	}

	if err := report.Findings(&b, "", nil, 0); !errors.As(err, &unknown) {
		t.Errorf("an empty format: %v, want an unknown format", err)
	}
}
