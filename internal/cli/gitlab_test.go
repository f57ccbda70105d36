package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/talops/talops/internal/cluster"
)

// gitLab is a git repository holding a lab at clusters/homelab, for --base and --reviewed-base.
type gitLab struct {
	t    *testing.T
	root string
	// Dir is the lab's directory in the work tree.
	Dir string
}

func newGitLab(t *testing.T) *gitLab {
	t.Helper()

	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is needed for --base: %v", err)
	}

	root := t.TempDir()

	return &gitLab{t: t, root: root, Dir: filepath.Join(root, "clusters", "homelab")}
}

// write puts files into the lab's directory of the work tree.
func (g *gitLab) write(files cluster.MapFiles) {
	g.t.Helper()

	for name, data := range files {
		p := filepath.Join(g.Dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			g.t.Fatal(err)
		}

		if err := os.WriteFile(p, data, 0o644); err != nil {
			g.t.Fatal(err)
		}
	}
}

// git runs git in the repository.
func (g *gitLab) git(args ...string) {
	g.t.Helper()

	cmd := exec.Command("git", append([]string{"-C", g.root, "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		g.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
