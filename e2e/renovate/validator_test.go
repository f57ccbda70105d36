//go:build renovate

package renovate

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRenovate_ValidatorAcceptsThePresetAndRefusesAMisspeltOption runs Renovate's own
// renovate-config-validator, strict and as a repository's configuration (what a preset
// is), on the preset and on a copy with one option misspelt: the second row shows the
// validator reads the rules, so the first one's pass means something.
func TestRenovate_ValidatorAcceptsThePresetAndRefusesAMisspeltOption(t *testing.T) {
	validator := filepath.Join(filepath.Dir(renovateBin(t)), "renovate-config-validator")

	preset, err := os.ReadFile(filepath.Join("..", "..", "renovate", "talos.json5"))
	if err != nil {
		t.Fatal(err)
	}

	var rules struct {
		PackageRules []map[string]any `json:"packageRules"`
	}

	if err := json.Unmarshal(preset, &rules); err != nil {
		t.Fatalf("the preset is not strict JSON: %v", err)
	}

	first := slices.IndexFunc(rules.PackageRules, func(r map[string]any) bool { return r["allowedVersions"] != nil })
	if first < 0 {
		t.Fatal("the preset has no allowedVersions to misspell")
	}

	misspelt := strings.Replace(string(preset), `"allowedVersions"`, `"allowedVersion"`, 1)

	for _, tc := range []struct {
		name, content string
		valid         bool
		want          string
	}{
		{"the preset", string(preset), true, "Config validated successfully"},
		{"a misspelt option", misspelt, false, fmt.Sprintf("Invalid configuration option: packageRules[%d].allowedVersion", first)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "talos.json5")
			if err := os.WriteFile(file, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}

			cmd := exec.Command(validator, "--strict", "--no-global", file)
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}

			out, err := cmd.CombinedOutput()
			if (err == nil) != tc.valid {
				t.Errorf("validator: err = %v, want valid %v\n%s", err, tc.valid, out)
			}

			if !strings.Contains(string(out), tc.want) {
				t.Errorf("validator output lacks %q:\n%s", tc.want, out)
			}
		})
	}
}
