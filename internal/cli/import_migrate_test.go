package cli_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImport_ImportedRepositoriesMigrateTo114WithTheirProof: every imported test
// repository, its talosVersion moved to v1.14.7 (as Renovate does), migrates to the 1.14
// documents with the proof, and plans against the unmigrated bump as a change of layout
// only on every node: no reboot, no drain, no setting. A field the 1.14 documents have no
// place for is refused at its line with nothing written; taken out by hand as the refusal
// says, the repository then migrates like the others.
func TestImport_ImportedRepositoriesMigrateTo114WithTheirProof(t *testing.T) {
	refused := map[string]string{
		// The 1.14 documents have no kubelet mounts (machinery v1.14.1: removed in the
		// multi-document config).
		"jfroy-flatops": "patches/global-05.yaml:2: left machine.kubelet: extraMounts has no place in the 1.14 documents",
	}

	// byHand is what a user does after the refusal: the repository then migrates with its
	// proof.
	byHand := map[string]func(t *testing.T, repo string){
		// The mounts go (their paths become user volumes under /var/mnt, which reach the
		// kubelet by themselves); the rest of the repository, the control planes' own
		// taint beside allowSchedulingOnControlPlanes included, migrates.
		"jfroy-flatops": func(t *testing.T, repo string) {
			t.Helper()

			if err := os.WriteFile(filepath.Join(repo, "patches", "global-05.yaml"), []byte("machine:\n  sysctls:\n    vm.max_map_count: \"262144\"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		},
	}

	for _, src := range importerSources() {
		t.Run(fmt.Sprintf("%s/%s", src.tool, filepath.Base(src.dir)), func(t *testing.T) {
			h := newDiskHarness(t)
			maps.Copy(h.env, src.env)

			repo := filepath.Join(t.TempDir(), "repo")
			if err := h.run("import", src.tool, "--from", src.dir, "--out", repo, "--plaintext-secrets"); err != nil {
				t.Fatalf("import: %v\n%s%s", err, h.stdout.String(), h.stderr.String())
			}

			talops, err := os.ReadFile(filepath.Join(repo, "talops.yaml"))
			if err != nil {
				t.Fatal(err)
			}

			bump := talosVersionLine.ReplaceAll(talops, []byte("talosVersion: v1.14.7"))
			if err := os.WriteFile(filepath.Join(repo, "talops.yaml"), bump, 0o600); err != nil {
				t.Fatal(err)
			}

			if why, ok := refused[filepath.Base(src.dir)]; ok {
				h.stdout.Reset()
				err := h.run("migrate", "--config-version", "v1.14", "--dir", repo)

				after, _ := os.ReadFile(filepath.Join(repo, "talops.yaml"))
				if err == nil || !strings.Contains(h.stdout.String(), filepath.Join(repo, why)) || string(after) != string(bump) {
					t.Errorf("migrate: %v, want a refusal naming %s and nothing written:\n%s%s", err, why, h.stdout.String(), h.stderr.String())
				}

				fix, ok := byHand[filepath.Base(src.dir)]
				if !ok {
					return
				}

				fix(t, repo)
			}

			base := filepath.Join(t.TempDir(), "base")
			if err := os.CopyFS(base, os.DirFS(repo)); err != nil {
				t.Fatal(err)
			}

			h.stdout.Reset()
			err = h.run("migrate", "--config-version", "v1.14", "--dir", repo)

			if err != nil {
				t.Fatalf("migrate: %v\n%s%s", err, h.stdout.String(), h.stderr.String())
			}

			// An import of a source at 1.14 or later writes the documents themselves.
			if strings.Contains(h.stdout.String(), "Nothing to migrate") {
				return
			}

			h.stdout.Reset()
			if err := h.run("plan", "--dir", repo, "--against", base, "--offline", "--format", "json"); err != nil {
				t.Fatalf("plan of the migration: %v\n%s%s", err, h.stdout.String(), h.stderr.String())
			}

			var p struct {
				Blocked bool `json:"blocked"`
				Nodes   []struct {
					Name        string          `json:"name"`
					Action      string          `json:"action"`
					NeedsReboot bool            `json:"needsReboot"`
					LayoutOnly  bool            `json:"layoutOnly"`
					Settings    json.RawMessage `json:"settings"`
				} `json:"nodes"`
			}

			if err := json.Unmarshal(h.stdout.Bytes(), &p); err != nil {
				t.Fatalf("plan --format json: %v\n%s", err, h.stdout.String())
			}

			if p.Blocked || len(p.Nodes) == 0 {
				t.Fatalf("the plan of the migration is blocked or has no node:\n%s", h.stdout.String())
			}

			for _, n := range p.Nodes {
				if n.Action != "update" || !n.LayoutOnly || n.NeedsReboot || len(n.Settings) > 0 {
					t.Errorf("%s: %s (layout only %v, reboot %v, settings %s), want an update of layout only", n.Name, n.Action, n.LayoutOnly, n.NeedsReboot, n.Settings)
				}
			}
		})
	}
}
