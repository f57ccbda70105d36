package cli_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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
// still validates without an error: configVersion keeps the layout, and installers
// follow the version.
func TestImport_ImportedRepositoriesTakeAPatchAndAMinorBump(t *testing.T) {
	type source struct {
		tool, dir string
		env       map[string]string
	}

	var sources []source
	for _, tc := range talhelperCases {
		sources = append(sources, source{"talhelper", talhelperTestdata(tc.dir), tc.env})
	}

	for _, dir := range []string{"postfinance-example", "schematics"} {
		sources = append(sources, source{"topf", topfTestdata(dir), topfExampleEnv})
	}

	for _, src := range sources {
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

				data, v := bumped(t, talops, minor)
				if err := os.WriteFile(filepath.Join(repo, "talops.yaml"), data, 0o600); err != nil {
					t.Fatal(err)
				}

				err = h.run("validate", "--dir", repo, "--offline", "--format", "json")
				if got := codes(t, h.stdout.String(), "error"); len(got) > 0 || err != nil {
					t.Errorf("validate at %s: %v, finds %v\n%s", v, err, got, h.stdout.String())
				}
			})
		}
	}
}
