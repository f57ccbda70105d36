package app_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/report"
)

// A secret value set in a patch is named by its file, never shown: the diffs redact it,
// and without the note the plan would read as if the node changed nothing.
func TestPlan_ASecretValueSetInAPatchIsNamedNotShown(t *testing.T) {
	t.Parallel()

	p := planned(t, tokenPatch(tokens[0]))

	if !slices.Equal(p.SecretValuesChanged, []string{"patches/common.yaml"}) {
		t.Errorf("secret values changed in %q, want patches/common.yaml", p.SecretValuesChanged)
	}

	for _, format := range report.PlanFormats {
		var buf bytes.Buffer
		if err := report.WritePlan(&buf, format, p, nil, 5, report.PlanView{}); err != nil {
			t.Fatal(err)
		}

		if !strings.Contains(buf.String(), "a secret value set in patches/common.yaml changed") && format != report.FormatJSON {
			t.Errorf("the %s plan does not say the secret changed:\n%s", format, buf.String())
		}

		if strings.Contains(buf.String(), tokens[0]) {
			t.Errorf("the %s plan shows the token", format)
		}
	}

	js, _ := json.Marshal(p)
	if !bytes.Contains(js, []byte(`"secretValuesChanged":["patches/common.yaml"]`)) || bytes.Contains(js, []byte(tokens[0])) {
		t.Errorf("JSON plan: %s", js)
	}

	if same := planned(t, func(testing.TB, cluster.MapFiles) {}); same.SecretValuesChanged != nil {
		t.Errorf("an unchanged patch is said to change a secret: %q", same.SecretValuesChanged)
	}
}

// The apply options talops.yaml declares that widen what apply does are in every plan,
// changed or not: apply acts on them without a flag, so a reviewer reads them each time.
func TestPlan_ShowsTheApplyOptionsTalopsYAMLDeclares(t *testing.T) {
	t.Parallel()

	p := planned(t, func(_ testing.TB, files cluster.MapFiles) {
		files["talops.yaml"] = append(files["talops.yaml"], []byte("apply:\n  drain: false\n  mode: no-reboot\n  lock: true\n")...)
	})

	want := []string{"drain: false: nodes reboot and upgrade without a drain", "mode: no-reboot: configs are applied in mode no-reboot"}
	if !slices.Equal(p.ApplyOptions, want) {
		t.Errorf("apply options %q, want %q", p.ApplyOptions, want)
	}

	var buf bytes.Buffer
	if err := report.WritePlan(&buf, report.FormatText, p, nil, 5, report.PlanView{}); err != nil {
		t.Fatal(err)
	}

	if !strings.Contains(buf.String(), "    drain: false: nodes reboot and upgrade without a drain\n") {
		t.Errorf("the text plan does not show the declared option:\n%s", buf.String())
	}

	if none := planned(t, func(testing.TB, cluster.MapFiles) {}); none.ApplyOptions != nil {
		t.Errorf("a talops.yaml without apply: shows options %q", none.ApplyOptions)
	}
}
