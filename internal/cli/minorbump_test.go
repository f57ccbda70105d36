package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/talops/talops/internal/schematic"
)

// The first Renovate minor bump of a repository init or an import wrote: the talosVersion
// line alone moves to the next minor, and since each pins configVersion, validate is clean
// and the plan against the repository as written upgrades every node, without an error.
func TestPlan_InitAndImportedRepositoriesTakeAMinorBumpCleanly(t *testing.T) {
	t.Parallel()

	// Configs that install the factory's vanilla image: the import keeps any other
	// installer in the nodes' patches, and ghcr.io/siderolabs/installer ends at 1.13
	// (installer.ghcr-removed says so on the bump).
	talosctlSrc, _ := talosctlDirWith(t, "factory.talos.dev/metal-installer/"+schematic.VanillaID+":v1.13.7")

	tests := []struct {
		name  string
		write func(h *diskHarness, repo string) error
	}{
		{"Init", func(h *diskHarness, repo string) error {
			return h.run("init", "--dir", repo, "--name", "lab", "--endpoint", "https://10.0.20.100:6443", "--talos-version", "v1.13.9", "--plaintext-secrets")
		}},
		{"ImportTalhelper", func(h *diskHarness, repo string) error {
			return h.run("import", "talhelper", "--from", talhelperTestdata("documents"), "--out", repo, "--plaintext-secrets")
		}},
		{"ImportTopf", func(h *diskHarness, repo string) error {
			return h.run("import", "topf", "--from", topfTestdata("postfinance-example"), "--out", repo, "--plaintext-secrets")
		}},
		{"ImportTalosctl", func(h *diskHarness, repo string) error {
			return h.run("import", "talosctl", "--from", talosctlSrc, "--out", repo, "--plaintext-secrets")
		}},
	}

	talosLine := regexp.MustCompile(`(?m)^talosVersion: v1\.13\.\d+$`)

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			h := newDiskHarness(t)
			repo, base := filepath.Join(t.TempDir(), "repo"), filepath.Join(t.TempDir(), "base")

			if err := tt.write(h, repo); err != nil {
				t.Fatalf("write the repository: %v\n%s%s", err, h.stdout.String(), h.stderr.String())
			}

			if err := os.CopyFS(base, os.DirFS(repo)); err != nil {
				t.Fatal(err)
			}

			spec := readFile(t, filepath.Join(repo, "talops.yaml"))
			if !strings.Contains(string(spec), "\nconfigVersion: v1.13\n") || !talosLine.Match(spec) {
				t.Fatalf("talops.yaml pins no configVersion: v1.13 beside a v1.13 talosVersion:\n%s", spec)
			}

			// Renovate's change: the talosVersion line alone.
			bumped := talosLine.ReplaceAll(spec, []byte("talosVersion: v1.14.1"))
			if err := os.WriteFile(filepath.Join(repo, "talops.yaml"), bumped, 0o644); err != nil {
				t.Fatal(err)
			}

			if err := h.run("validate", "--dir", repo, "--offline"); err != nil {
				t.Errorf("validate of the bump: %v\n%s", err, h.stdout.String())
			}

			if err := h.run("plan", "--dir", repo, "--against", base, "--offline"); err != nil {
				t.Fatalf("plan of the bump: %v\n%s%s", err, h.stdout.String(), h.stderr.String())
			}

			// An error finding is a "file:line: error code" line; the summary's "0 errors"
			// (printed beside the release-data note) is none.
			if out := h.stdout.String(); !strings.Contains(out, "upgrades (v1.13.") || strings.Contains(out, ": error ") || !strings.Contains(out, "0 errors") && strings.Contains(out, "errors") {
				t.Errorf("plan of the bump, want upgrades and no error:\n%s", out)
			}
		})
	}
}
