package action_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/action"
	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/testlab"
)

// pinnedLab is the reference lab on the production track, its driver pinned to 570.
func pinnedLab(t *testing.T, talos string) cluster.MapFiles {
	t.Helper()

	files := testlab.Files(t)
	testlab.Unpin(t, files) // the lab moves across minors here
	testlab.SetVersions(t, files, talos, "")
	testlab.SetVersions(t, files, "", "v1.34.1")
	testlab.Edit(t, files, "talops.yaml", "  flavour: lts\n", "  flavour: production\n  driver: \"570\"\n")
	testlab.Edit(t, files, "schematics/gpu.yaml", "-lts\n", "-production\n")
	testlab.Edit(t, files, "schematics/gpu.yaml", "-lts\n", "-production\n")

	return files
}

func TestVersions_SummaryAnnotationsAndOutputs(t *testing.T) {
	t.Parallel()

	r := newRunner(t, pinnedLab(t, "v1.13.9"), map[string]string{"dir": "examples/homelab", "against": "base"})
	r.dirs["base"] = pinnedLab(t, "v1.11.6")

	err := action.Run(context.Background(), r.deps, []string{"versions"})
	if cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit code %d, want 1 for the broken pin (%v)", cli.ExitCode(err), err)
	}

	golden(t, "versions-summary.md", r.file(t, "GITHUB_STEP_SUMMARY"))

	for _, want := range []string{
		"::error file=examples/homelab/talops.yaml,line=13,title=nvidia.driver-pin (k8s-node1)::nvidia.driver: Talos v1.11.6 → v1.13.9 moves the NVIDIA driver 570.172.08 → 595.91.07",
		"::warning file=examples/homelab/talops.yaml,line=6,title=versions.upgrade-skips-minor::",
		"versions failed: Talos v1.11.6 → v1.13.9",
	} {
		if !strings.Contains(r.stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout.String())
		}
	}

	out := r.file(t, "GITHUB_OUTPUT")
	for _, want := range []string{"talos-from<<", "\nv1.11.6\n", "talos-to<<", "\nv1.13.9\n", "upgrade<<", "\nskips-minor\n", `"pinBroken":true`, "errors<<", "\n1\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("outputs lack %q:\n%s", want, out)
		}
	}
}

// TestVersions_ComparesWithThePullRequestBase checks that, with neither base nor against,
// the base commit comes from the event payload (aaaa in the test runner's event).
func TestVersions_ComparesWithThePullRequestBase(t *testing.T) {
	t.Parallel()

	r := newRunner(t, testlab.Files(t), map[string]string{"dir": "examples/homelab"})

	var asked []string

	r.deps.Git = func(_ context.Context, _ string, args ...string) ([]byte, error) {
		asked = append(asked, strings.Join(args, " "))

		if args[0] == "rev-parse" && args[1] == "--show-prefix" {
			return []byte("examples/homelab/\n"), nil
		}

		return nil, errors.New("unknown revision")
	}

	if err := action.Run(context.Background(), r.deps, []string{"versions"}); cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit code %d", cli.ExitCode(err))
	}

	if !strings.Contains(strings.Join(asked, "\n"), "aaaa^{commit}") {
		t.Errorf("git was not asked for the PR's base commit: %q", asked)
	}

	if !strings.Contains(r.stdout.String(), `::error::git ref "aaaa" not found`) {
		t.Errorf("stdout: %s", r.stdout.String())
	}
}

func TestVersions_OutsideAPullRequestNeedsABase(t *testing.T) {
	t.Parallel()

	r := newRunner(t, testlab.Files(t), map[string]string{"dir": "examples/homelab"})
	r.env["GITHUB_EVENT_PATH"] = ""
	r.env["GITHUB_EVENT_NAME"] = "push"

	if err := action.Run(context.Background(), r.deps, []string{"versions"}); cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit code %d", cli.ExitCode(err))
	}

	if !strings.Contains(r.stdout.String(), "::error::versions compares against the pull request's base") {
		t.Errorf("stdout: %s", r.stdout.String())
	}
}

func TestVersions_ActionYAMLDeclaresWhatTheCommandReadsAndWrites(t *testing.T) {
	t.Parallel()

	meta := readMeta(t, "actions", "versions", "action.yml")

	wantInputs := []string{
		action.InputAgainst, action.InputBase, action.InputDir, action.InputFixDriverPin, action.InputGitHubToken,
		action.InputOffline, action.InputSOPSAgeKey, action.InputTalosSecrets,
	}
	slices.Sort(wantInputs)

	if got := slices.Sorted(maps.Keys(meta.Inputs)); !slices.Equal(got, wantInputs) {
		t.Errorf("inputs = %v, want %v", got, wantInputs)
	}

	if !slices.Equal(meta.Runs.Args, []string{"action", "versions"}) {
		t.Fatalf("args = %v", meta.Runs.Args)
	}

	r := newRunner(t, testlab.Files(t), map[string]string{"dir": "examples/homelab", "against": "base"})
	r.dirs["base"] = testlab.Files(t)

	if err := action.Run(context.Background(), r.deps, meta.Runs.Args[1:]); err != nil {
		t.Fatal(err)
	}

	var set []string

	for _, line := range strings.Split(r.file(t, "GITHUB_OUTPUT"), "\n") {
		if name, _, ok := strings.Cut(line, "<<"); ok {
			set = append(set, name)
		}
	}

	slices.Sort(set)

	if declared := slices.Sorted(maps.Keys(meta.Outputs)); !slices.Equal(set, declared) {
		t.Errorf("outputs set %v, declared %v", set, declared)
	}
}
