package cli_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var talosVersionLine = regexp.MustCompile(`(?m)^talosVersion: v(\d+)\.(\d+)\.(\d+)$`)

// bumped is talops.yaml with talosVersion one patch release on (minor false) or on the
// next minor release's first (minor true).
func bumped(t *testing.T, talops []byte, minor bool) ([]byte, string) {
	t.Helper()

	m := talosVersionLine.FindSubmatch(talops)
	if m == nil {
		t.Fatalf("talops.yaml names no talosVersion:\n%s", talops)
	}

	major, _ := strconv.Atoi(string(m[1]))
	minorV, _ := strconv.Atoi(string(m[2]))
	patch, _ := strconv.Atoi(string(m[3]))

	v := fmt.Sprintf("v%d.%d.%d", major, minorV, patch+1)
	if minor {
		v = fmt.Sprintf("v%d.%d.0", major, minorV+1)
	}

	return talosVersionLine.ReplaceAll(talops, []byte("talosVersion: "+v)), v
}

// TestImport_ImportedRepositoriesTakeAPatchAndAMinorBump: every imported test repository,
// its talosVersion bumped one patch release and one minor release (as Renovate does),
// still validates without an error, and plans against the import as it was as an upgrade
// of every node to the new release and nothing else: configVersion keeps the layout, and
// installers follow the version.
func TestImport_ImportedRepositoriesTakeAPatchAndAMinorBump(t *testing.T) {
	for _, src := range importerSources() {
		for _, minor := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/%s/minor=%v", src.tool, filepath.Base(src.dir), minor), func(t *testing.T) {
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

				base := filepath.Join(t.TempDir(), "base")
				if err := os.CopyFS(base, os.DirFS(repo)); err != nil {
					t.Fatal(err)
				}

				data, v := bumped(t, talops, minor)
				if err := os.WriteFile(filepath.Join(repo, "talops.yaml"), data, 0o600); err != nil {
					t.Fatal(err)
				}

				err = h.run("validate", "--dir", repo, "--offline", "--format", "json")
				if got := codes(t, h.stdout.String(), "error"); len(got) > 0 || err != nil {
					t.Errorf("validate at %s: %v, finds %v\n%s", v, err, got, h.stdout.String())
				}

				h.stdout.Reset()
				if err := h.run("plan", "--dir", repo, "--against", base, "--offline", "--format", "json"); err != nil {
					t.Fatalf("plan of the bump to %s: %v\n%s%s", v, err, h.stdout.String(), h.stderr.String())
				}

				checkUpgradeOnly(t, h.stdout.Bytes(), v)
			})
		}
	}
}

// checkUpgradeOnly fails unless a plan (JSON) moves every node to the release v and
// changes nothing else: no setting, no refusal, no line of the config but its installer.
func checkUpgradeOnly(t *testing.T, out []byte, v string) {
	t.Helper()

	var p struct {
		Blocked  bool            `json:"blocked"`
		Settings json.RawMessage `json:"settings"`
		Nodes    []struct {
			Name     string          `json:"name"`
			Diff     string          `json:"diff"`
			Settings json.RawMessage `json:"settings"`
			Upgrade  *struct {
				ToVersion, FromInstaller, ToInstaller string
			} `json:"upgrade"`
		} `json:"nodes"`
	}

	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatalf("plan --format json: %v\n%s", err, out)
	}

	if p.Blocked || len(p.Settings) > 0 || len(p.Nodes) == 0 {
		t.Errorf("the plan of the bump is blocked, changes settings or has no node:\n%s", out)
	}

	for _, n := range p.Nodes {
		if len(n.Settings) > 0 || n.Upgrade == nil || n.Upgrade.ToVersion != v {
			t.Errorf("%s: want an upgrade to %s and nothing else:\n%s", n.Name, v, out)

			continue
		}

		for line := range strings.SplitSeq(n.Diff, "\n") {
			changed := strings.HasPrefix(line, "+") || strings.HasPrefix(line, "-")
			header := strings.HasPrefix(line, "+++") || strings.HasPrefix(line, "---")
			installer := strings.HasSuffix(line, " "+n.Upgrade.FromInstaller) || strings.HasSuffix(line, " "+n.Upgrade.ToInstaller)

			if changed && !header && !installer {
				t.Errorf("%s: the bump changes more than the installer: %q", n.Name, line)
			}
		}
	}
}

// importerSource is a test repository of an importer: the tool, its folder, its environment.
type importerSource struct {
	tool, dir string
	env       map[string]string
}

// importerSources are the importers' test repositories the import tests hold to the real
// tools' output: every talhelper case and topf's examples.
func importerSources() []importerSource {
	var out []importerSource
	for _, tc := range talhelperCases {
		out = append(out, importerSource{"talhelper", talhelperTestdata(tc.dir), tc.env})
	}

	for _, dir := range []string{"postfinance-example", "schematics"} {
		out = append(out, importerSource{"topf", topfTestdata(dir), topfExampleEnv})
	}

	return out
}
