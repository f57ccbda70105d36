package archtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pinOwnActions runs hack/pin-own-actions.sh with args on a copy of docs/workflows and
// returns the copy's root, with the script's output.
func pinOwnActions(t *testing.T, args ...string) (string, []byte, error) {
	t.Helper()

	root := t.TempDir()
	dst := filepath.Join(root, "docs", "workflows")

	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}

	files, err := filepath.Glob(filepath.Join(repoRoot(t), "docs", "workflows", "*.yml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs/workflows/*.yml (%v)", err)
	}

	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}

		if err := os.WriteFile(filepath.Join(dst, filepath.Base(f)), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}

	cmd := exec.Command("bash", append([]string{filepath.Join(repoRoot(t), "hack", "pin-own-actions.sh")}, append(args, root)...)...)
	out, err := cmd.CombinedOutput()

	return root, out, err
}

// After a release, the copy-ready workflows name talops' own actions by the commit of
// their major tag: every use is pinned as the workflow rules want it, and no other line of
// any workflow changes. Pinning again moves every use to the next commit.
func TestPinOwnActions_PinsEveryUseOfTheOwnActionsAndNothingElse(t *testing.T) {
	t.Parallel()

	const first, next = "11d5960a326750d5838078e36cf38b85af677262", "0057852bfaa89a56745cba8c7296529d2fc39830"

	root, out, err := pinOwnActions(t, first, "v0")
	if err != nil {
		t.Fatalf("pin-own-actions.sh: %v\n%s", err, out)
	}

	if out, err := exec.Command("bash", filepath.Join(repoRoot(t), "hack", "pin-own-actions.sh"), next, "v0", root).CombinedOutput(); err != nil {
		t.Fatalf("pin-own-actions.sh again: %v\n%s", err, out)
	}

	pinned := 0

	for _, f := range workflowFiles(t) {
		if !strings.Contains(f, filepath.Join("docs", "workflows")) {
			continue
		}

		before, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}

		after, err := os.ReadFile(filepath.Join(root, "docs", "workflows", filepath.Base(f)))
		if err != nil {
			t.Fatal(err)
		}

		was, is := strings.Split(string(before), "\n"), strings.Split(string(after), "\n")
		if len(was) != len(is) {
			t.Fatalf("%s: %d lines became %d", filepath.Base(f), len(was), len(is))
		}

		for i := range was {
			if was[i] == is[i] {
				continue
			}

			pinned++

			line := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(is[i]), "- "), "uses: ")
			uses, comment, _ := strings.Cut(line, " ")

			if !strings.Contains(was[i], "uses: talops/talops/actions/") {
				t.Errorf("%s:%d: a line that names no own action changed: %q → %q", filepath.Base(f), i+1, was[i], is[i])
			}

			if !strings.HasSuffix(uses, "@"+next) || comment != "# v0" {
				t.Errorf("%s:%d: %q is not pinned to %s # v0", filepath.Base(f), i+1, is[i], next)
			}

			if p := ownActionProblem(uses, comment); p != "" {
				t.Errorf("%s:%d: %s", filepath.Base(f), i+1, p)
			}
		}
	}

	if pinned == 0 {
		t.Fatal("no use of talops' own actions was pinned")
	}
}

func TestPinOwnActions_RefusesWhatIsNoCommitOrMajorTag(t *testing.T) {
	t.Parallel()

	for _, args := range [][]string{
		{"11d5960", "v0"},
		{"11d5960a326750d5838078e36cf38b85af677262", "v0.2.0"},
		{"main", "v0"},
	} {
		if _, out, err := pinOwnActions(t, args...); err == nil {
			t.Errorf("pin-own-actions.sh %q succeeded:\n%s", args, out)
		}
	}
}
