package gitrev_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talops/talops/internal/gitrev"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()

	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")

	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}

	return strings.TrimSpace(string(out))
}

func write(t *testing.T, path, content string) {
	t.Helper()

	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}

	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRead_ReadsASubdirectoryAtAnEarlierCommitWithoutTouchingTheWorkTree(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	write(t, filepath.Join(repo, "clusters/lab/talops.yaml"), "talosVersion: v1.13.8\n")
	write(t, filepath.Join(repo, "clusters/lab/nodes/cp1.yaml"), "hostname: cp1\n")
	write(t, filepath.Join(repo, "clusters/lab-other/talops.yaml"), "y\n")
	write(t, filepath.Join(repo, "other.txt"), "x\n")
	if err := os.Symlink("talops.yaml", filepath.Join(repo, "clusters/lab/link.yaml")); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "one")
	base := git(t, repo, "rev-parse", "HEAD")

	write(t, filepath.Join(repo, "clusters/lab/talops.yaml"), "talosVersion: v1.13.9\n")
	git(t, repo, "commit", "-q", "-am", "two")
	write(t, filepath.Join(repo, "clusters/lab/talops.yaml"), "uncommitted\n")

	files, err := gitrev.Read(context.Background(), gitrev.Exec, filepath.Join(repo, "clusters/lab"), base)
	if err != nil {
		t.Fatal(err)
	}

	// Only the directory's regular files, by their paths in it: not a sibling whose name
	// begins the same, not a symbolic link.
	want := map[string]string{"talops.yaml": "talosVersion: v1.13.8\n", "nodes/cp1.yaml": "hostname: cp1\n"}
	if len(files) != len(want) {
		t.Errorf("read %d files, want %d: %v", len(files), len(want), keys(files))
	}

	for name, content := range want {
		if got, ok := files[name]; !ok || string(got) != content {
			t.Errorf("%s = %q (present %v), want %q", name, got, ok, content)
		}
	}

	if now, _ := os.ReadFile(filepath.Join(repo, "clusters/lab/talops.yaml")); string(now) != "uncommitted\n" {
		t.Errorf("work tree changed: %q", now)
	}

	if status := git(t, repo, "status", "--porcelain"); status != "M clusters/lab/talops.yaml" {
		t.Errorf("index or work tree changed: %q", status)
	}
}

func TestRead_UnknownRefIsAClearError(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	write(t, filepath.Join(repo, "a"), "a")
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "one")

	_, err := gitrev.Read(context.Background(), gitrev.Exec, repo, "no-such-branch")
	if err == nil || !strings.Contains(err.Error(), `git ref "no-such-branch" not found`) {
		t.Errorf("err = %v", err)
	}

	if _, err := gitrev.Read(context.Background(), gitrev.Exec, repo, "--output=/tmp/x"); err == nil {
		t.Error("an option-like ref was accepted")
	}
}

func TestRead_ADirectoryAddedSinceTheRefIsAbsent(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	write(t, filepath.Join(repo, "clusters/old/talops.yaml"), "x\n")
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "one")
	base := git(t, repo, "rev-parse", "HEAD")

	write(t, filepath.Join(repo, "clusters/new/talops.yaml"), "y\n")
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "two")

	_, err := gitrev.Read(context.Background(), gitrev.Exec, filepath.Join(repo, "clusters/new"), base)
	if !errors.Is(err, gitrev.ErrAbsent) {
		t.Errorf("err = %v, want ErrAbsent", err)
	}
}

func keys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}

	return out
}
