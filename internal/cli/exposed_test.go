package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitWorkTree makes dir a Git work tree, as git init does.
func gitWorkTree(t *testing.T, dir string) {
	t.Helper()

	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
}

// A credential written into a Git work tree that does not ignore it is refused, with the
// rule to add; --force writes it, and so does the rule once added.
func TestCredentials_RefusedInsideAWorkTreeThatDoesNotIgnoreThem(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}

	t.Parallel()

	root := t.TempDir()
	gitWorkTree(t, root)

	h := newDiskHarness(t)
	repo := filepath.Join(root, "clusters", "lab")

	if err := h.run("init", "--dir", repo, "--name", "lab", "--endpoint", "https://10.0.20.100:6443", "--plaintext-secrets"); err != nil {
		t.Fatalf("init: %v\n%s", err, h.stderr.String())
	}

	tests := []struct {
		name string
		args func(out string) []string
		out  string
		rule string
	}{
		{"TalosconfigOut", func(out string) []string { return []string{"talosconfig", "--dir", repo, "--out", out} }, "lab.tc", "/lab.tc"},
		{"KubeconfigOut", func(out string) []string { return []string{"kubeconfig", "--dir", repo, "--out", out} }, "clusters/lab/admin.yaml", "/clusters/lab/admin.yaml"},
		{"RenderOut", func(out string) []string { return []string{"render", "--dir", repo, "--out", out} }, "out", "/out/"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(root, filepath.FromSlash(tt.out))

			err := h.run(tt.args(out)...)
			if err == nil || !strings.Contains(err.Error(), "add the line "+tt.rule+" to "+filepath.Join(root, ".gitignore")) || !strings.Contains(err.Error(), "--force writes it anyway") {
				t.Fatalf("%s into the work tree: %v, want a refusal naming the rule %s", tt.name, err, tt.rule)
			}

			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written", out)
			}
		})
	}

	// apply refuses before it reads, let alone changes, any node.
	err := h.run("apply", "--dir", repo, "--kubeconfig-out", filepath.Join(root, "admin.yaml"))
	if err == nil || !strings.HasPrefix(err.Error(), "--kubeconfig-out: ") || !strings.Contains(err.Error(), "add the line /admin.yaml to ") {
		t.Errorf("apply --kubeconfig-out into the work tree: %v", err)
	}

	// --force writes it; the init-written .gitignore of clusters/lab covers its own names.
	if err := h.run("talosconfig", "--dir", repo, "--out", filepath.Join(root, "lab.tc"), "--force"); err != nil {
		t.Errorf("talosconfig --force: %v", err)
	}

	for _, name := range []string{"talosconfig", "talosconfig.yaml", "lab.talosconfig", "kubeconfig-lab"} {
		if err := h.run("talosconfig", "--dir", repo, "--out", filepath.Join(repo, name)); err != nil {
			t.Errorf("talosconfig --out %s beside talops.yaml, which init's .gitignore covers: %v", name, err)
		}
	}

	if err := h.run("render", "--dir", repo, "--out", filepath.Join(repo, "rendered")); err != nil {
		t.Errorf("render --out rendered beside talops.yaml, which init's .gitignore covers: %v", err)
	}
}

func TestCredentials_OutsideAWorkTreeAreWritten(t *testing.T) {
	t.Parallel()

	h := newDiskHarness(t)
	repo := filepath.Join(t.TempDir(), "lab")

	if err := h.run("init", "--dir", repo, "--name", "lab", "--endpoint", "https://10.0.20.100:6443", "--plaintext-secrets"); err != nil {
		t.Fatalf("init: %v\n%s", err, h.stderr.String())
	}

	if err := h.run("talosconfig", "--dir", repo, "--out", filepath.Join(repo, "admin.tc")); err != nil {
		t.Errorf("talosconfig outside any work tree: %v", err)
	}
}
