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
