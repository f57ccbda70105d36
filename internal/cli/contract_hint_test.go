package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/testlab"
)

// The lab as it ran 1.13 is the base of these 1.13 → 1.14 bumps.

// A minor bump without configVersion gives contract.v1alpha1-conflict errors where the
// lab's patches set fields the new format moved; validate says why and what to pin, once.
func TestValidate_MinorBumpWithoutConfigVersionHintsAtIt(t *testing.T) {
	t.Parallel()

	files := testlab.On113(t)
	testlab.Unpin(t, files)
	testlab.SetVersions(t, files, "v1.14.1", "")

	h := newHarness(t, files, nil)
	_ = h.run("validate", "--dir", "examples/homelab", "--offline")

	out := h.stdout.String()
	if !strings.Contains(out, "contract.v1alpha1-conflict") || strings.Count(out, "config.contract") != 1 || !strings.Contains(out, "configVersion: v1.13") {
		t.Errorf("validate of a bump without configVersion:\n%s", out)
	}
}

// The lab's Renovate minor bump from 1.13 to 1.14, with configVersion pinned as the hint
// says: versions and plan against the lab give a clean upgrade of every node, no error.
func TestPlan_TheLabAsShippedTakesARenovateMinorBumpCleanly(t *testing.T) {
	t.Parallel()

	// Renovate's change: the talosVersion line alone. The lab pins configVersion.
	files := testlab.On113(t)
	testlab.SetVersions(t, files, "v1.14.1", "")

	if h := newHarness(t, files, nil); h.run("validate", "--dir", "examples/homelab", "--offline") != nil {
		t.Errorf("validate of the bumped lab:\n%s", h.stdout.String())
	}

	for _, cmd := range []string{"versions", "plan"} {
		h := newHarness(t, files, nil)
		h.dirs["base"] = testlab.On113(t)

		if err := h.run(cmd, "--dir", "examples/homelab", "--against", "base", "--offline"); err != nil {
			t.Errorf("%s of the bump: %v\n%s%s", cmd, err, h.stdout.String(), h.stderr.String())
		}

		out := h.stdout.String()
		if cmd == "versions" && !strings.Contains(out, "versions ok: Talos v1.13.9 → v1.14.1") || cmd == "plan" && !strings.Contains(out, "5 upgrades (v1.13.9 → v1.14.1)") {
			t.Errorf("%s of the bump:\n%s", cmd, out)
		}
	}
}

// versions and plan agree: a bump whose new state has errors (here the config format the
// new release moved) is not "versions ok" while plan is blocked.
func TestVersions_ReportsTheNewStatesErrorsAsPlanDoes(t *testing.T) {
	t.Parallel()

	files := testlab.On113(t)
	testlab.Unpin(t, files)
	testlab.SetVersions(t, files, "v1.14.1", "")

	for _, cmd := range []string{"versions", "plan"} {
		h := newHarness(t, files, nil)
		h.dirs["base"] = testlab.On113(t)

		err := h.run(cmd, "--dir", "examples/homelab", "--against", "base", "--offline")
		if cli.ExitCode(err) != cli.ExitFailure || !strings.Contains(h.stdout.String(), "contract.v1alpha1-conflict") {
			t.Errorf("%s of a bump with config errors: exit %d\n%s", cmd, cli.ExitCode(err), h.stdout.String())
		}
	}
}

// A release the embedded data lacks, checked offline: the GPU node's driver after the bump
// is unknown, never "none" (which would read as the driver being removed).
func TestVersions_MissingReleaseDataIsUnknownNotNone(t *testing.T) {
	t.Parallel()

	files := testlab.On113(t)
	testlab.SetVersions(t, files, "v1.14.1", "") // the lab pins configVersion v1.13

	for _, format := range []string{"text", "markdown"} {
		h := newHarness(t, files, nil)
		h.dirs["base"] = testlab.On113(t)

		_ = h.run("versions", "--dir", "examples/homelab", "--against", "base", "--offline", "--format", format)

		out := h.stdout.String()
		if !strings.Contains(out, "unknown (no release data)") || strings.Contains(out, "→ none") || strings.Contains(out, "**none**") || strings.Contains(out, "**unknown") {
			t.Errorf("versions --format %s:\n%s", format, out)
		}
	}
}

// A repository an earlier init wrote, before it pinned configVersion, bumped a minor: its
// patches/all.yaml set machine.install, which the 1.14 format moved to an
// UnattendedInstallConfig document. validate names the cure next to the error.
func TestValidate_UnpinnedInitRepositoryBumpedAMinorHintsAtConfigVersion(t *testing.T) {
	t.Parallel()

	h := newDiskHarness(t)
	repo := filepath.Join(t.TempDir(), "repo")

	if err := h.run("init", "--dir", repo, "--name", "lab", "--endpoint", "https://10.0.20.100:6443", "--talos-version", "v1.13.9", "--plaintext-secrets"); err != nil {
		t.Fatalf("init: %v\n%s", err, h.stderr.String())
	}

	// The patch that earlier init wrote.
	if err := os.WriteFile(filepath.Join(repo, "patches", "all.yaml"), []byte("machine:\n  install:\n    wipe: false\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	file := filepath.Join(repo, "talops.yaml")
	spec := string(readFile(t, file))
	spec = regexp.MustCompile(`(?m)^configVersion: v1\.13\n`).ReplaceAllString(spec, "")
	spec = strings.Replace(spec, "talosVersion: v1.13.9\n", "talosVersion: v1.14.1\n", 1)

	if err := os.WriteFile(file, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}

	_ = h.run("validate", "--dir", repo, "--offline")

	out := h.stdout.String()
	if !strings.Contains(out, "UnattendedInstallConfig config is incompatible with v1alpha1 config") || strings.Count(out, "config.contract") != 1 ||
		!strings.Contains(out, "add configVersion with the release the patches were written for") {
		t.Errorf("validate of an unpinned bump, want the UnattendedInstallConfig error and one config.contract hint:\n%s", out)
	}
}
