package cli_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/talos/talostest"
)

// runningTalhelperCluster starts fake nodes of the "documents" case running exactly what
// talhelper generated for them (with the schematic of their installer), plus change on
// changed's node, and points the harness's talosconfig at them.
func runningTalhelperCluster(t *testing.T, h *diskHarness, version, changed, change string) {
	t.Helper()

	gen := filepath.Join(talhelperTestdata("documents"), "talhelper-genconfig")
	ca := talostest.NewCA(t)
	addresses := map[string]string{}

	for _, n := range []struct{ name, file, address string }{{"cp1", "docs-cp1.yaml", "10.0.1.11"}, {"w1", "docs-w1.yaml", "10.0.1.12"}} {
		config, err := os.ReadFile(filepath.Join(gen, n.file))
		if err != nil {
			t.Fatal(err)
		}

		if n.name == changed {
			config = []byte(strings.Replace(string(config), "\nmachine:\n", "\nmachine:\n"+change, 1))
		}

		s := talostest.Start(t, ca, talostest.Node{
			Name: n.name, Config: config, Version: version,
			SchematicID: "376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba",
		})
		addresses[n.address] = s.Addr
	}

	cfg := talostest.Talosconfig(t, "documents", ca.PEM, ca.ClientCert(t))
	cfg.Contexts["documents"].Nodes = []string{"10.0.1.11"}
	path := filepath.Join(t.TempDir(), "talosconfig")

	if err := os.WriteFile(path, talostest.TalosconfigBytes(t, cfg), 0o600); err != nil {
		t.Fatal(err)
	}

	h.env["TALOSCONFIG"] = path
	h.deps.TalosTimeout = 5 * time.Second
	h.deps.TalosEndpoint = func(address string) string {
		host, _, _ := strings.Cut(address, ":")
		if a, ok := addresses[host]; ok {
			return a
		}

		return talostest.Closed(t)
	}
}

func TestImport_WithTheRunningNodesWritesOnlyWhatTheyRun(t *testing.T) {
	src := talhelperTestdata("documents")

	t.Run("every node runs what the import renders: written, and the first plan is empty", func(t *testing.T) {
		h := newDiskHarness(t)
		runningTalhelperCluster(t, h, "v1.13.7", "", "")

		repo, _, out := importAndRender(t, h, src, "--plaintext-secrets", "--talosconfig", h.env["TALOSCONFIG"])
		if strings.Contains(out, "import.differs-from-running") {
			t.Errorf("import output names differences:\n%s", out)
		}

		if err := h.run("plan", "--dir", repo, "--live"); err != nil || !strings.Contains(h.stdout.String(), "no changes") {
			t.Errorf("plan --live after the import: %v\n%s%s", err, h.stdout.String(), h.stderr.String())
		}
	})

	t.Run("a node runs something else: nothing written, the node named", func(t *testing.T) {
		h := newDiskHarness(t)
		runningTalhelperCluster(t, h, "v1.13.7", "w1", "  env:\n    HTTP_PROXY: http://proxy:3128\n")
		repo := filepath.Join(t.TempDir(), "repo")

		err := h.run("import", "talhelper", "--from", src, "--out", repo, "--plaintext-secrets", "--talosconfig", h.env["TALOSCONFIG"])

		var differs *app.ImportDiffersError
		if !errors.As(err, &differs) || len(differs.Nodes) != 1 || differs.Nodes[0].Name != "w1" {
			t.Fatalf("import = %v, want the one node w1 named", err)
		}

		if msg := err.Error(); !strings.Contains(msg, "w1: reboot: machine.env changed") || strings.Contains(msg, "cp1") {
			t.Errorf("error:\n%s", msg)
		}

		if _, err := os.Stat(repo); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the repository was written: %v", err)
		}

		if err := h.run("import", "talhelper", "--from", src, "--out", repo, "--plaintext-secrets", "--talosconfig", h.env["TALOSCONFIG"], "--allow-differences"); err != nil {
			t.Fatalf("import --allow-differences: %v\n%s", err, h.stderr.String())
		}

		if out := h.stdout.String(); !strings.Contains(out, "warning import.differs-from-running [w1] the first plan after the import will reboot it: machine.env changed") {
			t.Errorf("import --allow-differences does not name w1:\n%s", out)
		}
	})

	t.Run("--allow-differences needs --talosconfig", func(t *testing.T) {
		h := newDiskHarness(t)

		err := h.run("import", "talhelper", "--from", src, "--out", filepath.Join(t.TempDir(), "repo"), "--allow-differences")
		if cli.ExitCode(err) != cli.ExitFailure || !strings.Contains(err.Error(), "--allow-differences needs --talosconfig") {
			t.Errorf("err = %v (exit %d)", err, cli.ExitCode(err))
		}
	})
}

// A talconfig that names no Talos release takes the one the running nodes report.
func TestImport_TakesTheTalosReleaseFromTheRunningNodes(t *testing.T) {
	h := newDiskHarness(t)
	runningTalhelperCluster(t, h, "v1.13.5", "", "")
	repo := filepath.Join(t.TempDir(), "repo")

	if err := h.run("import", "talhelper", "--from", talhelperTestdata("shapes"), "--out", repo, "--plaintext-secrets",
		"--talosconfig", h.env["TALOSCONFIG"], "--allow-differences"); err != nil {
		t.Fatalf("import: %v\n%s", err, h.stderr.String())
	}

	if out := h.stdout.String(); !strings.Contains(out, "talosVersion: not set: talops.yaml takes v1.13.5, the release the running nodes report (--talosconfig)") {
		t.Errorf("import does not say where the release came from:\n%s", out)
	}

	spec, err := os.ReadFile(filepath.Join(repo, "talops.yaml"))
	if err != nil || !strings.Contains(string(spec), "talosVersion: v1.13.5\n") {
		t.Errorf("talops.yaml (%v):\n%s", err, spec)
	}
}
