package gitrev_test

import (
	"context"
	"errors"
	"fmt"
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

// ReadReusing takes a file the other state holds as the ref has it from that state, and
// only the rest from git, in one archive of their paths: a file changed since, one the
// other state lacks, one removed since, one named like a glob. Its answer is Read's.
func TestReadReusing_ReadsFromGitOnlyWhatTheOtherStateHoldsOtherwise(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")

	base := map[string]string{
		"talops.yaml":      "talosVersion: v1.13.8\n",
		"nodes/cp1.yaml":   "hostname: cp1\n",
		"nodes/w1.yaml":    "hostname: w1\n",
		"nodes/w[1].yaml":  "hostname: glob\n",
		"nodes/gone.yaml":  "hostname: gone\n",
		"patches/all.yaml": "machine: {}\n",
	}
	// More files unchanged than not: past half, the whole directory is archived.
	for i := range 6 {
		base[fmt.Sprintf("nodes/n%d.yaml", i)] = fmt.Sprintf("hostname: n%d\n", i)
	}

	for name, content := range base {
		write(t, filepath.Join(repo, "clusters/lab", name), content)
	}

	if err := os.Symlink("talops.yaml", filepath.Join(repo, "clusters/lab/link.yaml")); err != nil {
		t.Fatal(err)
	}

	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "base")

	// The other state: two files as they are at the ref, two changed, none of the rest.
	held := map[string][]byte{
		"nodes/cp1.yaml":   []byte(base["nodes/cp1.yaml"]),
		"patches/all.yaml": []byte(base["patches/all.yaml"]),
		"nodes/w1.yaml":    []byte("hostname: w1-renamed\n"),
		"nodes/w[1].yaml":  []byte("hostname: changed\n"),
	}
	for i := range 6 {
		name := fmt.Sprintf("nodes/n%d.yaml", i)
		held[name] = []byte(base[name])
	}
	have := func(name string) ([]byte, bool) { data, ok := held[name]; return data, ok }

	var archives [][]string

	runner := func(ctx context.Context, dir string, args ...string) ([]byte, error) {
		if args[0] == "archive" {
			archives = append(archives, args)
		}

		return gitrev.Exec(ctx, dir, args...)
	}

	dir := filepath.Join(repo, "clusters/lab")

	files, err := gitrev.ReadReusing(context.Background(), runner, dir, "HEAD", have)
	if err != nil {
		t.Fatal(err)
	}

	whole, err := gitrev.Read(context.Background(), gitrev.Exec, dir, "HEAD")
	if err != nil {
		t.Fatal(err)
	}

	if len(files) != len(base) || len(whole) != len(base) {
		t.Errorf("read %v, Read %v, want the %d files of the ref", keys(files), keys(whole), len(base))
	}

	for name, content := range base {
		if string(files[name]) != content || string(whole[name]) != content {
			t.Errorf("%s = %q, Read %q, want %q", name, files[name], whole[name], content)
		}
	}

	for _, name := range []string{"nodes/cp1.yaml", "patches/all.yaml", "nodes/n0.yaml"} {
		if &files[name][0] != &held[name][0] {
			t.Errorf("%s, unchanged, was read from git again", name)
		}
	}

	want := []string{"archive", "--format=tar", "HEAD", "--", ":(literal)clusters/lab/nodes/gone.yaml", ":(literal)clusters/lab/nodes/w1.yaml", ":(literal)clusters/lab/nodes/w[1].yaml", ":(literal)clusters/lab/talops.yaml"}
	if len(archives) != 1 || strings.Join(archives[0], " ") != strings.Join(want, " ") {
		t.Errorf("git archives %q, want one of the four files the other state lacks or holds otherwise", archives)
	}
}
