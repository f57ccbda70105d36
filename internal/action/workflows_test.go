package action_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/testlab"
)

type exampleWorkflow struct {
	Jobs map[string]struct {
		Steps []struct {
			Uses string            `yaml:"uses"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// talopsSteps are the steps of an example workflow that run one of talops' actions, by
// the action's name ("apply" for talops/talops/actions/apply@v0).
func talopsSteps(t *testing.T, file string) map[string][]map[string]string {
	t.Helper()

	data, err := os.ReadFile(filepath.Join(testlab.Root(), "docs", "workflows", file))
	if err != nil {
		t.Fatal(err)
	}

	var wf exampleWorkflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("%s: %v", file, err)
	}

	out := map[string][]map[string]string{}

	for _, job := range wf.Jobs {
		for _, s := range job.Steps {
			if name, ok := strings.CutPrefix(s.Uses, "talops/talops/actions/"); ok {
				name, _, _ = strings.Cut(name, "@")
				out[name] = append(out[name], s.With)
			}
		}
	}

	return out
}

// Every input an example workflow passes is one its action declares: a misspelt input is
// silently ignored by the runner.
func TestExampleWorkflows_PassOnlyInputsTheActionsDeclare(t *testing.T) {
	for _, file := range []string{"pr.yml", "apply.yml", "nightly.yml", "backup.yml"} {
		for name, steps := range talopsSteps(t, file) {
			var meta struct {
				Inputs map[string]any `yaml:"inputs"`
			}

			data, err := os.ReadFile(filepath.Join(testlab.Root(), "actions", name, "action.yml"))
			if err != nil {
				t.Fatal(err)
			}

			if err := yaml.Unmarshal(data, &meta); err != nil {
				t.Fatal(err)
			}

			for _, with := range steps {
				for input := range with {
					if _, ok := meta.Inputs[input]; !ok {
						t.Errorf("%s passes %s an input it does not declare: %s", file, name, input)
					}
				}
			}
		}
	}
}

// The example apply workflow passes no option that widens what apply does: with a reviewed
// plan each would be refused, since talops.yaml's apply: section is where the review sees
// them.
func TestExampleWorkflows_ApplyPassesNoWideningOption(t *testing.T) {
	steps := talopsSteps(t, "apply.yml")["apply"]
	if len(steps) != 1 {
		t.Fatalf("the apply workflow has %d talops steps, want 1", len(steps))
	}

	for _, input := range []string{"allow-remove", "no-drain", "no-lock", "ignore-window", "no-etcd-backup", "proxmox-vms", "proxmox-reset", "mode"} {
		if v, ok := steps[0][input]; ok {
			t.Errorf("the apply workflow passes %s: %s, which a reviewed plan refuses", input, v)
		}
	}
}
