package action_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/action"
	"github.com/talops/talops/internal/github/githubtest"
	"github.com/talops/talops/internal/testlab"
)

type actionMeta struct {
	Inputs  map[string]any `yaml:"inputs"`
	Outputs map[string]any `yaml:"outputs"`
	Runs    struct {
		Image string   `yaml:"image"`
		Args  []string `yaml:"args"`
	} `yaml:"runs"`
}

func readMeta(t *testing.T, path ...string) actionMeta {
	t.Helper()

	data, err := os.ReadFile(filepath.Join(append([]string{testlab.Root()}, path...)...))
	if err != nil {
		t.Fatal(err)
	}

	var m actionMeta
	if err := yaml.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}

	return m
}

func outputsSet(r *runner, t *testing.T) []string {
	var set []string

	for _, line := range strings.Split(r.file(t, "GITHUB_OUTPUT"), "\n") {
		if name, _, ok := strings.Cut(line, "<<"); ok && !strings.HasPrefix(name, "id-") {
			set = append(set, name)
		}
	}

	slices.Sort(set)

	return slices.Compact(set)
}

func TestActionYAML_ValidatePlanAndApplyDeclareWhatTheyReadAndWrite(t *testing.T) {
	for _, tc := range []struct {
		name   string
		inputs []string
		setup  func(t *testing.T) *runner
	}{
		{
			name:   "validate",
			inputs: []string{action.InputDir, action.InputSOPSAgeKey, action.InputStrict, action.InputTalosSecrets},
			setup: func(t *testing.T) *runner {
				return newRunner(t, testlab.Files(t), map[string]string{"dir": "examples/homelab"})
			},
		},
		{
			name: "plan",
			inputs: []string{action.InputAgainst, action.InputBase, action.InputComment, action.InputCommentAuthor, action.InputDir, action.InputGitHubToken,
				action.InputLive, action.InputOffline, action.InputSOPSAgeKey, action.InputTalosconfig, action.InputTalosSecrets},
			setup: func(t *testing.T) *runner { return planRunner(t, githubtest.New(t, "lab", "infra", 7)) },
		},
		{
			name: "apply",
			inputs: []string{action.InputCommentAuthor, action.InputDir, action.InputDryRun, action.InputGitHubToken, action.InputMode, action.InputParallel,
				action.InputProxmoxImages, action.InputRegister, action.InputRequireReviewedPlan, action.InputReviewedAgainst,
				action.InputEtcdBackup, action.InputNoEtcdBackup, action.InputNodes, action.InputKubeconfig, action.InputNoDrain, action.InputDrainTimeout, action.InputProxmoxReset, action.InputProxmoxVMs, action.InputAllowRemove, action.InputNoLock, action.InputIgnoreWindow, action.InputRollback,
				action.InputSOPSAgeKey, action.InputTalosconfig, action.InputTalosSecrets},
			setup: func(t *testing.T) *runner {
				l := newApplyLab(t)
				l.review(t)

				return l.runner(t, nil)
			},
		},
		{
			name: "backup",
			inputs: []string{action.InputDir, action.InputTo, action.InputFrom, action.InputS3Endpoint, action.InputS3Region, action.InputRecipients, action.InputKeep, action.InputKeepWithin,
				action.InputVerify, action.InputTalosconfig, action.InputSOPSAgeKey, action.InputTalosSecrets},
			setup: func(t *testing.T) *runner {
				r, _, _ := backupRunner(t, map[string]string{"verify": "latest"})

				return r
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := readMeta(t, "actions", tc.name, "action.yml")

			if got := slices.Sorted(maps.Keys(m.Inputs)); !slices.Equal(got, slices.Sorted(slices.Values(tc.inputs))) {
				t.Errorf("inputs = %v, want %v", got, tc.inputs)
			}

			if !slices.Equal(m.Runs.Args, []string{"action", tc.name}) || !strings.HasPrefix(m.Runs.Image, "docker://ghcr.io/") {
				t.Errorf("runs = %+v", m.Runs)
			}

			r := tc.setup(t)
			if err := action.Run(context.Background(), r.deps, m.Runs.Args[1:]); err != nil {
				t.Fatal(err)
			}

			if set, declared := outputsSet(r, t), slices.Sorted(maps.Keys(m.Outputs)); !slices.Equal(set, declared) {
				t.Errorf("outputs set %v, declared %v", set, declared)
			}
		})
	}
}

func TestActionYAML_RootDeclaresEveryInputAndOutputOfTheActions(t *testing.T) {
	t.Parallel()

	root := readMeta(t, "action.yml")

	if root.Runs.Image != "Dockerfile" || !slices.Equal(root.Runs.Args, []string{"action"}) {
		t.Errorf("root runs = %+v", root.Runs)
	}

	entries, err := os.ReadDir(filepath.Join(testlab.Root(), "actions"))
	if err != nil {
		t.Fatal(err)
	}

	for _, e := range entries {
		m := readMeta(t, "actions", e.Name(), "action.yml")

		for in := range m.Inputs {
			if _, ok := root.Inputs[in]; !ok {
				t.Errorf("root action.yml lacks input %q of actions/%s", in, e.Name())
			}
		}

		for out := range m.Outputs {
			if _, ok := root.Outputs[out]; !ok {
				t.Errorf("root action.yml lacks output %q of actions/%s", out, e.Name())
			}
		}
	}
}
