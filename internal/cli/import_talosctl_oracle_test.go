//go:build talosctl

package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/talops/talops/internal/importer/importtest"
)

// The talosctl oracle: the real talosctl (TALOSCTL, built by .ci/talosctl) generates a
// cluster's configs and patches one node's, and talops renders each of them back from the
// imported repository, document by document; validate accepts the repository.
func TestImportTalosctl_OracleGenConfigAndMachineconfigPatch(t *testing.T) {
	bin := os.Getenv("TALOSCTL")
	if bin == "" {
		t.Fatal("TALOSCTL must name a talosctl binary (.ci/talosctl -o FILE builds it)")
	}

	work := t.TempDir()
	talosctl := func(args ...string) {
		t.Helper()

		cmd := exec.Command(bin, args...)
		cmd.Dir = work
		cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}

		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("talosctl %v: %v\n%s", args, err, out)
		}
	}

	talosctl("gen", "config", "lab", "https://10.0.0.10:6443", "--kubernetes-version", "1.36.2", "--install-disk", "/dev/vda",
		"--config-patch-worker", `machine: {sysctls: {vm.max_map_count: "262144"}}`, "-o", "gen")

	patch := "machine:\n  sysctls:\n    net.core.somaxconn: \"65535\"\n---\napiVersion: v1alpha1\nkind: WatchdogTimerConfig\ndevice: /dev/watchdog0\ntimeout: 5m\n"
	if err := os.WriteFile(filepath.Join(work, "node.patch.yaml"), []byte(patch), 0o600); err != nil {
		t.Fatal(err)
	}

	talosctl("machineconfig", "patch", "gen/worker.yaml", "--patch", "@node.patch.yaml", "-o", "10.0.0.12.yaml")

	h := newDiskHarness(t)
	repo := filepath.Join(t.TempDir(), "repo")
	rendered := filepath.Join(t.TempDir(), "rendered")

	if err := h.run("import", "talosctl", "--from", filepath.Join(work, "gen"), "--out", repo, "--plaintext-secrets", filepath.Join(work, "10.0.0.12.yaml")); err != nil {
		t.Fatalf("import: %v\n%s", err, h.stderr.String())
	}

	if err := h.run("render", "--dir", repo, "--out", rendered); err != nil {
		t.Fatalf("render: %v\n%s", err, h.stderr.String())
	}

	if err := h.run("validate", "--dir", repo, "--offline"); err != nil {
		t.Fatalf("validate: %v\n%s", err, h.stdout.String())
	}

	for node, file := range map[string]string{"controlplane": "gen/controlplane.yaml", "worker": "gen/worker.yaml", "10-0-0-12": "10.0.0.12.yaml"} {
		diffs, err := importtest.Compare(readFile(t, filepath.Join(work, file)), readFile(t, filepath.Join(rendered, node+".yaml")))
		if err != nil {
			t.Fatal(err)
		}

		if len(diffs) > 0 {
			t.Errorf("%s renders otherwise than talosctl's %s: %q", node, file, diffs)
		}
	}
}
