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

func TestExport_ReadsASubdirectoryAtAnEarlierCommitWithoutTouchingTheWorkTree(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	write(t, filepath.Join(repo, "clusters/lab/talops.yaml"), "talosVersion: v1.13.8\n")
	write(t, filepath.Join(repo, "other.txt"), "x\n")
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "one")
	base := git(t, repo, "rev-parse", "HEAD")

	write(t, filepath.Join(repo, "clusters/lab/talops.yaml"), "talosVersion: v1.13.9\n")
	git(t, repo, "commit", "-q", "-am", "two")
	write(t, filepath.Join(repo, "clusters/lab/talops.yaml"), "uncommitted\n")

	dir, cleanup, err := gitrev.Export(context.Background(), gitrev.Exec, filepath.Join(repo, "clusters/lab"), base, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()

	got, err := os.ReadFile(filepath.Join(dir, "talops.yaml"))
	if err != nil || string(got) != "talosVersion: v1.13.8\n" {
		t.Errorf("exported talops.yaml = %q, %v", got, err)
	}

	if _, err := os.Stat(filepath.Join(dir, "..", "..", "other.txt")); err == nil {
		t.Error("files outside the directory were exported")
	}

	if now, _ := os.ReadFile(filepath.Join(repo, "clusters/lab/talops.yaml")); string(now) != "uncommitted\n" {
		t.Errorf("work tree changed: %q", now)
	}

	if status := git(t, repo, "status", "--porcelain"); status != "M clusters/lab/talops.yaml" {
		t.Errorf("index or work tree changed: %q", status)
	}
}

func TestExport_UnknownRefIsAClearError(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	write(t, filepath.Join(repo, "a"), "a")
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "one")

	_, _, err := gitrev.Export(context.Background(), gitrev.Exec, repo, "no-such-branch", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), `git ref "no-such-branch" not found`) {
		t.Errorf("err = %v", err)
	}

	if _, _, err := gitrev.Export(context.Background(), gitrev.Exec, repo, "--output=/tmp/x", t.TempDir()); err == nil {
		t.Error("an option-like ref was accepted")
	}
}

func TestExport_ADirectoryAddedSinceTheRefIsAbsent(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	write(t, filepath.Join(repo, "clusters/old/talops.yaml"), "x\n")
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "one")
	base := git(t, repo, "rev-parse", "HEAD")

	write(t, filepath.Join(repo, "clusters/new/talops.yaml"), "y\n")
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "two")

	_, _, err := gitrev.Export(context.Background(), gitrev.Exec, filepath.Join(repo, "clusters/new"), base, t.TempDir())
	if !errors.Is(err, gitrev.ErrAbsent) {
		t.Errorf("err = %v, want ErrAbsent", err)
	}
}
