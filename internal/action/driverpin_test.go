package action_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talops/talops/internal/action"
	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/github/githubtest"
	"github.com/talops/talops/internal/testlab"
)

const (
	renovateBranch = "renovate/patch-talos"
	renovateTitle  = "chore(deps): update talos to v1.13.9"
	branchFile     = "examples/homelab/talops.yaml"
	contentsPath   = "/repos/lab/infra/contents/" + branchFile
)

// exactPinLab is the reference lab on Talos talos, its LTS driver pinned to the exact
// version pin.
func exactPinLab(t *testing.T, talos, pin string) cluster.MapFiles {
	t.Helper()

	files := testlab.At(t, talos, "v1.36.4")
	testlab.Edit(t, files, "talops.yaml", "  flavour: lts\n", "  flavour: lts\n  driver: \""+pin+"\"   # exact, moved with Talos\n")

	return files
}

// pinRunner runs versions with fix-driver-pin on Renovate's pull request that bumps the lab
// from Talos v1.13.8 to v1.13.9, which moves the LTS driver 580.173.02 → 580.178.04; the
// fake GitHub holds the pull request and its branch's talops.yaml.
func pinRunner(t *testing.T, gh *githubtest.Server, pin string) *runner {
	t.Helper()

	head := exactPinLab(t, "v1.13.9", pin)

	r := newRunner(t, head, map[string]string{"dir": "examples/homelab", "against": "base", "fix-driver-pin": "true", "github-token": "ghs_faketoken"})
	r.dirs["base"] = exactPinLab(t, "v1.13.8", pin)
	r.env["GITHUB_API_URL"] = gh.URL
	r.deps.WriteFile = func(name string, data []byte, _ os.FileMode) error {
		rel, err := filepath.Rel("examples/homelab", name)
		if err != nil {
			return err
		}

		head[filepath.ToSlash(rel)] = data

		return nil
	}

	gh.SetPull(githubtest.Pull{Title: renovateTitle, HeadRef: renovateBranch})
	gh.AddFile(renovateBranch, branchFile, head["talops.yaml"])

	return r
}

func TestVersionsFixDriverPin_CommitsThePinToTheBranchAndSaysItInTheTitle(t *testing.T) {
	t.Parallel()

	gh := githubtest.New(t, "lab", "infra", 7)
	r := pinRunner(t, gh, "580.173.02")
	want := strings.Replace(string(gh.File(renovateBranch, branchFile)), `"580.173.02"`, `"580.178.04"`, 1)

	if err := action.Run(context.Background(), r.deps, []string{"versions"}); err != nil {
		t.Fatalf("versions: %v\n%s", err, r.stdout.String())
	}

	golden(t, "versions-fix-driver-pin-summary.md", r.file(t, "GITHUB_STEP_SUMMARY"))

	if got := string(gh.File(renovateBranch, branchFile)); got != want {
		t.Errorf("the branch's talops.yaml =\n%s\nwant\n%s", got, want)
	}

	commits := gh.Commits()
	if len(commits) != 1 || commits[0].Message != "nvidia.driver 580.173.02 → 580.178.04: the driver of Talos v1.13.9\n\nThe exact pin moves with the Talos release's driver (talops versions --fix-driver-pin)." {
		t.Errorf("commits = %+v", commits)
	}

	if got := gh.PullTitle(); got != renovateTitle+" (driver 580.173.02 → 580.178.04)" {
		t.Errorf("title = %q", got)
	}

	if !strings.Contains(r.stdout.String(), "committed nvidia.driver 580.173.02 → 580.178.04 to renovate/patch-talos ("+commits[0].SHA+")") ||
		strings.Contains(r.stdout.String(), "ghs_faketoken") {
		t.Errorf("stdout:\n%s", r.stdout.String())
	}
}

// A second run (the pull request's next push, or a re-run) finds the branch moved and the
// title saying so: it writes nothing.
func TestVersionsFixDriverPin_LeavesABranchThatSaysItAlready(t *testing.T) {
	t.Parallel()

	gh := githubtest.New(t, "lab", "infra", 7)
	r := pinRunner(t, gh, "580.173.02")
	moved := strings.Replace(string(gh.File(renovateBranch, branchFile)), `"580.173.02"`, `"580.178.04"`, 1)
	gh.AddFile(renovateBranch, branchFile, []byte(moved))
	gh.SetPull(githubtest.Pull{Title: renovateTitle + " (driver 580.173.02 → 580.178.04)", HeadRef: renovateBranch})

	if err := action.Run(context.Background(), r.deps, []string{"versions"}); err != nil {
		t.Fatalf("versions: %v\n%s", err, r.stdout.String())
	}

	if w := gh.Writes(); len(w) != 0 {
		t.Errorf("writes = %+v", w)
	}
}

// GitHub's own answers to a token without the permission: one line naming it, and the
// step fails.
func TestVersionsFixDriverPin_SaysWhichPermissionTheTokenLacks(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name, method, path, want string
		commits                  int
	}{
		{
			name: "contents", method: http.MethodPut, path: contentsPath,
			want: "::error::commit the nvidia.driver pin to renovate/patch-talos: the token may not write the repository's contents: give the job permissions: contents: write\n",
		},
		{
			name: "pull requests", method: http.MethodPatch, path: "/repos/lab/infra/pulls/7", commits: 1,
			want: "::error::edit the title of lab/infra#7: the token may not write pull requests: give the job permissions: pull-requests: write\n",
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			gh := githubtest.New(t, "lab", "infra", 7)
			gh.FailNext(tt.method, tt.path, githubtest.NotAccessible())
			r := pinRunner(t, gh, "580.173.02")

			err := action.Run(context.Background(), r.deps, []string{"versions"})
			if cli.ExitCode(err) != cli.ExitFailure {
				t.Fatalf("exit code %d (%v)", cli.ExitCode(err), err)
			}

			if !strings.HasSuffix(r.stdout.String(), tt.want) {
				t.Errorf("stdout ends\n%s\nwant\n%s", lastLines(r.stdout.String(), 3), tt.want)
			}

			if n := len(gh.Commits()); n != tt.commits || gh.PullTitle() != renovateTitle {
				t.Errorf("%d commits, title %q", n, gh.PullTitle())
			}
		})
	}
}

// A fork's branch is not the repository's to write: talops says so and commits nothing.
func TestVersionsFixDriverPin_RefusesAForksBranch(t *testing.T) {
	t.Parallel()

	gh := githubtest.New(t, "lab", "infra", 7)
	r := pinRunner(t, gh, "580.173.02")
	gh.SetPull(githubtest.Pull{Title: renovateTitle, HeadRef: renovateBranch, HeadRepo: "someone/infra"})

	err := action.Run(context.Background(), r.deps, []string{"versions"})
	if cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit code %d (%v)", cli.ExitCode(err), err)
	}

	if want := "::error::move the nvidia.driver pin on lab/infra#7: its branch is in someone/infra, and talops commits only to a branch of lab/infra\n"; !strings.HasSuffix(r.stdout.String(), want) {
		t.Errorf("stdout ends\n%s", lastLines(r.stdout.String(), 3))
	}

	if w := gh.Writes(); len(w) != 0 {
		t.Errorf("writes = %+v", w)
	}
}

// A branch pin is never moved: the finding fails the step, and GitHub is not asked.
func TestVersionsFixDriverPin_LeavesABranchPinToTheFinding(t *testing.T) {
	t.Parallel()

	gh := githubtest.New(t, "lab", "infra", 7)
	r := newRunner(t, pinnedLab(t, "v1.13.9"), map[string]string{"dir": "examples/homelab", "against": "base", "fix-driver-pin": "true"})
	r.dirs["base"] = pinnedLab(t, "v1.11.6")
	r.env["GITHUB_API_URL"] = gh.URL

	err := action.Run(context.Background(), r.deps, []string{"versions"})
	if cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit code %d (%v)", cli.ExitCode(err), err)
	}

	if !strings.Contains(r.stdout.String(), "title=nvidia.driver-pin (k8s-node1)::nvidia.driver: Talos v1.11.6 → v1.13.9") {
		t.Errorf("stdout:\n%s", r.stdout.String())
	}

	if reqs := gh.Requests(); len(reqs) != 0 {
		t.Errorf("GitHub was asked %+v", reqs)
	}
}

func TestVersionsFixDriverPin_NeedsAPullRequest(t *testing.T) {
	t.Parallel()

	r := newRunner(t, testlab.Files(t), map[string]string{"dir": "examples/homelab", "against": "base", "fix-driver-pin": "true"})
	r.dirs["base"] = testlab.Files(t)
	r.env["GITHUB_EVENT_PATH"] = ""
	r.env["GITHUB_EVENT_NAME"] = "push"

	if err := action.Run(context.Background(), r.deps, []string{"versions"}); cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit code %d", cli.ExitCode(err))
	}

	if !strings.Contains(r.stdout.String(), "::error::fix-driver-pin commits to the pull request's branch: run it on pull_request") {
		t.Errorf("stdout: %s", r.stdout.String())
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")

	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
