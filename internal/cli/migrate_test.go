package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/testlab"
)

// migrateHarness is a harness whose writes land in the repository it serves.
func migrateHarness(t *testing.T) (*harness, map[string][]byte) {
	t.Helper()

	files := testlab.Files(t)
	h := newHarness(t, files, nil)
	h.deps.WriteFile = func(name string, data []byte, _ os.FileMode) error {
		rel, err := filepath.Rel("examples/homelab", name)
		if err != nil {
			return err
		}

		files[filepath.ToSlash(rel)] = data

		return nil
	}

	return h, files
}

// --check says, in one screen, what would move and what would stay, and writes nothing.
func TestMigrate_CheckPrintsWhatWouldMoveAndStayAndExitsOne(t *testing.T) {
	t.Parallel()

	h, files := migrateHarness(t)
	before := string(files["patches/controlplane.yaml"])

	err := h.run("migrate", "--config-version", "v1.14", "--dir", "examples/homelab", "--check")
	if code := cli.ExitCode(err); code != 1 {
		t.Fatalf("exit %d (%v), want 1", code, err)
	}

	golden(t, "migrate-check.txt", h.stdout.String())

	if string(files["patches/controlplane.yaml"]) != before {
		t.Error("--check wrote a file")
	}
}

// --format json is the same summary as data.
func TestMigrate_CheckAsJSON(t *testing.T) {
	t.Parallel()

	h, _ := migrateHarness(t)

	err := h.run("migrate", "--config-version", "v1.14", "--dir", "examples/homelab", "--check", "--format", "json")
	if code := cli.ExitCode(err); code != 1 {
		t.Fatalf("exit %d (%v), want 1", code, err)
	}

	var v struct {
		From    string            `json:"from"`
		Target  string            `json:"target"`
		Moves   []json.RawMessage `json:"moves"`
		Stays   []json.RawMessage `json:"stays"`
		Nodes   int               `json:"nodes"`
		Written bool              `json:"written"`
	}

	if err := json.Unmarshal(h.stdout.Bytes(), &v); err != nil {
		t.Fatalf("%v:\n%s", err, h.stdout.String())
	}

	if v.From != "v1.13" || v.Target != "v1.14" || len(v.Moves) == 0 || len(v.Stays) == 0 || v.Nodes != 5 || v.Written {
		t.Errorf("summary %+v", v)
	}
}

func TestMigrate_WritesTheLabThenCheckExitsZero(t *testing.T) {
	t.Parallel()

	h, files := migrateHarness(t)

	if err := h.run("migrate", "--config-version", "v1.14", "--dir", "examples/homelab"); err != nil {
		t.Fatal(err)
	}

	if !strings.Contains(h.stdout.String(), "all 5 nodes keep their effective settings") || !strings.Contains(string(files["patches/worker.yaml"]), "kind: KubeNodeConfig") {
		t.Fatalf("output:\n%s", h.stdout.String())
	}

	h.stdout.Reset()

	err := h.run("migrate", "--config-version", "v1.14", "--dir", "examples/homelab", "--check")
	if code := cli.ExitCode(err); code != 0 {
		t.Fatalf("--check after migrate: exit %d (%v)\n%s", code, err, h.stdout.String())
	}

	if !strings.Contains(h.stdout.String(), "Nothing to migrate") {
		t.Errorf("output:\n%s", h.stdout.String())
	}
}

func TestMigrate_RefusalIsOneLinePerSettingWithExitOne(t *testing.T) {
	t.Parallel()

	h, files := migrateHarness(t)
	// The switch in a patch workers use too cannot move: the migrated control plane would
	// be tainted, and every node's config would be invalid.
	files["patches/common.yaml"] = []byte("cluster:\n  allowSchedulingOnControlPlanes: true\nmachine:\n  nodeLabels:\n    zone: a\n")

	err := h.run("migrate", "--config-version", "v1.14", "--dir", "examples/homelab")
	if code := cli.ExitCode(err); code != 1 {
		t.Fatalf("exit %d (%v), want 1", code, err)
	}

	out := h.stdout.String()
	for _, line := range []string{
		"examples/homelab/patches/common.yaml:2: left cluster.allowSchedulingOnControlPlanes: the control planes' KubeNodeConfig taint replaces it, and a worker uses this file",
		"examples/homelab/patches/common.yaml:2: refused [k8s-master] the migrated config is invalid: .cluster.allowSchedulingOnControlPlanes is already set in v1alpha1 config\n",
		"examples/homelab/patches/common.yaml:4: refused [k8s-master] node.taints would change\n",
		"Not written: 6 effective differences or invalid configs across 5 nodes; the files are as they were.\n",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("output lacks %q", line)
		}
	}

	if t.Failed() {
		t.Fatalf("output:\n%s", out)
	}
}

func TestMigrate_ConfigVersionIsRequired(t *testing.T) {
	t.Parallel()

	h, _ := migrateHarness(t)

	err := h.run("migrate", "--dir", "examples/homelab")
	if code := cli.ExitCode(err); code != 1 || !strings.Contains(h.stderr.String(), "--config-version is required") {
		t.Fatalf("exit %d, stderr %q", code, h.stderr.String())
	}
}

// A lab whose talosVersion moved past its patches' format without configVersion: migrate
// refuses, and says to pin the format the patches were written for first.
func TestMigrate_AnUnpinnedRepositoryThatDoesNotRenderIsToldToPinConfigVersionFirst(t *testing.T) {
	t.Parallel()

	h, files := migrateHarness(t)
	testlab.Unpin(t, files)

	err := h.run("migrate", "--config-version", "v1.14", "--dir", "examples/homelab")
	if code := cli.ExitCode(err); code != 1 || !strings.HasSuffix(h.stdout.String(), "Not written: 7 effective differences or invalid configs across 5 nodes; the files are as they were.\ntalops.yaml pins no configVersion, so the patches were read in the format of talosVersion's own release; if they were written for an older one, add configVersion with it (e.g. configVersion: v1.13), check it with talops validate, then migrate.\n") {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, h.stderr.String(), h.stdout.String())
	}
}
