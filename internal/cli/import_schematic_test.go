package cli_test

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/factory"
	"github.com/talops/talops/internal/factory/factorytest"
	"github.com/talops/talops/internal/schematic"
)

// copyTree copies a directory but the files skip names.
func copyTree(t *testing.T, from, to string, skip ...string) {
	t.Helper()

	err := filepath.WalkDir(from, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}

		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}

		for _, s := range skip {
			if rel == s {
				return nil
			}
		}

		if e.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}

		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}

		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestImportTalhelper_SchematicFlagTiesTalosImageURLToItsSchematic: a repository whose
// schematic file lives elsewhere gets it with --schematic, and validates.
func TestImportTalhelper_SchematicFlagTiesTalosImageURLToItsSchematic(t *testing.T) {
	tc := talhelperCaseOf("lukeevans-talos-cluster")
	src := filepath.Join(t.TempDir(), "talos")
	copyTree(t, talhelperTestdata(tc.dir), src, "schematic.yaml")

	h := newDiskHarness(t)
	maps.Copy(h.env, tc.env)

	given := filepath.Join(talhelperTestdata(tc.dir), "schematic.yaml")
	repo, _, out := importAndRender(t, h, src, "--plaintext-secrets", "--schematic", given)

	if !strings.Contains(out, given+" has this image's schematic ID: the node's schematic is schematic, and talops names its installer") {
		t.Errorf("import does not say where the schematic came from:\n%s", out)
	}

	talops, err := os.ReadFile(filepath.Join(repo, "talops.yaml"))
	if err != nil {
		t.Fatal(err)
	}

	if got := strings.Count(string(talops), "    schematic: schematic\n"); got != 3 {
		t.Errorf("want the 3 nodes on the schematic, got %d:\n%s", got, talops)
	}

	if err := h.run("validate", "--dir", repo, "--offline", "--format", "json"); err != nil {
		t.Fatalf("validate: %v\n%s", err, h.stdout.String())
	}
}

func TestImportTalhelper_SchematicFlagRefusals(t *testing.T) {
	notSchematic := filepath.Join(talhelperTestdata("lukeevans-talos-cluster"), "talenv.yaml")

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"a file that does not exist", []string{"talhelper", "--schematic", "/nonexistent/schematic.yaml"}, "--schematic /nonexistent/schematic.yaml: not readable"},
		{"a file that is no schematic", []string{"talhelper", "--schematic", notSchematic}, "talenv.yaml: not an Image Factory schematic"},
		{"another source than talhelper", []string{"topf", "--schematic", notSchematic}, "flag provided but not defined: -schematic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newDiskHarness(t)
			h.env["TALOS_LUKS_FALLBACK"] = "fallback-passphrase-for-tests"

			out := filepath.Join(t.TempDir(), "repo")
			args := append([]string{"import", tc.args[0], "--from", talhelperTestdata("lukeevans-talos-cluster"), "--out", out, "--plaintext-secrets"}, tc.args[1:]...)

			err := h.run(args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("want an error with %q, got %v", tc.want, err)
			}

			var usage *app.UsageError
			if tc.name != "a file that is no schematic" && !errors.As(err, &usage) {
				t.Errorf("want a usage error, got %T", err)
			}

			if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a refused import wrote %s", out)
			}
		})
	}
}

// TestImportTalhelper_TalosImageURLInstallerFollowsTalosVersion: the nodes of a talosImageURL
// whose schematic is known install talops' installer of it under the URL's name
// (installer-secureboot, kept by talops.yaml's installer), so a bump of talosVersion moves
// them with it and validate finds no installer.mismatch.
func TestImportTalhelper_TalosImageURLInstallerFollowsTalosVersion(t *testing.T) {
	tc := talhelperCaseOf("lukeevans-talos-cluster")
	h := newDiskHarness(t)
	maps.Copy(h.env, tc.env)

	repo, _, _ := importAndRender(t, h, talhelperTestdata(tc.dir), "--plaintext-secrets")

	talopsYAML := filepath.Join(repo, "talops.yaml")

	data, err := os.ReadFile(talopsYAML)
	if err != nil {
		t.Fatal(err)
	}

	bumped := strings.Replace(string(data), "talosVersion: v1.13.8\n", "talosVersion: v1.13.9\n", 1)
	if bumped == string(data) {
		t.Fatalf("talops.yaml has no talosVersion v1.13.8:\n%s", data)
	}

	if err := os.WriteFile(talopsYAML, []byte(bumped), 0o600); err != nil {
		t.Fatal(err)
	}

	rendered := filepath.Join(t.TempDir(), "rendered")
	if err := h.run("render", "--dir", repo, "--out", rendered); err != nil {
		t.Fatalf("render: %v\n%s", err, h.stderr.String())
	}

	want := "image: factory.talos.dev/installer-secureboot/44186a005dfca322f81df634a457384455475fbfa518777f3ee58d35f173d73b:v1.13.9\n"

	for node := range tc.outputs {
		cfg, err := os.ReadFile(filepath.Join(rendered, node+".yaml"))
		if err != nil {
			t.Fatal(err)
		}

		if !strings.Contains(string(cfg), want) {
			t.Errorf("%s does not install %s", node, strings.TrimSpace(want))
		}
	}

	if err := h.run("validate", "--dir", repo, "--offline", "--format", "json"); err != nil {
		t.Fatalf("validate: %v\n%s", err, h.stdout.String())
	}

	if got := codes(t, h.stdout.String(), "error"); len(got) > 0 {
		t.Errorf("validate after the bump finds %v", got)
	}
}

// lukeevansID is the schematic ID of lukeevans-talos-cluster's talosImageURL.
const lukeevansID = "44186a005dfca322f81df634a457384455475fbfa518777f3ee58d35f173d73b"

// TestImportTalhelper_AnIDNoFileHasIsAskedOfTheFactory: without schematic.yaml, the
// import asks the factory for the schematic of the nodes' talosImageURL (once), and the
// nodes get it; with --offline it asks nothing, keeps the ID as an opaque schematic and
// says so.
func TestImportTalhelper_AnIDNoFileHasIsAskedOfTheFactory(t *testing.T) {
	tc := talhelperCaseOf("lukeevans-talos-cluster")
	given, err := os.ReadFile(filepath.Join(talhelperTestdata(tc.dir), "schematic.yaml"))
	if err != nil {
		t.Fatal(err)
	}

	s, err := schematic.Load(given)
	if err != nil {
		t.Fatal(err)
	}

	answer, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}

	for _, offline := range []bool{false, true} {
		t.Run(fmt.Sprintf("offline=%v", offline), func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "talos")
			copyTree(t, talhelperTestdata(tc.dir), src, "schematic.yaml")

			h := newDiskHarness(t)
			maps.Copy(h.env, tc.env)

			fake := factorytest.New(t)
			if !offline {
				fake.ExpectSchematic(lukeevansID, string(answer))
			}

			h.deps.ImageFactory = func(base string) (*factory.Client, error) {
				if base != cluster.DefaultImageFactory {
					t.Errorf("factory base URL %q, want %q", base, cluster.DefaultImageFactory)
				}

				return factory.New(fake.URL(), factory.WithHTTPClient(fake.Client()), factory.WithRetries(0))
			}

			args := []string{"--plaintext-secrets"}
			if offline {
				args = append(args, "--offline")
			}

			repo, _, out := importAndRender(t, h, src, args...)

			talops, err := os.ReadFile(filepath.Join(repo, "talops.yaml"))
			if err != nil {
				t.Fatal(err)
			}

			if n := strings.Count(string(talops), "    schematic: factory-44186a005dfc\n"); n != 3 {
				t.Errorf("want the 3 nodes on the schematic of the ID, got %d:\n%s\n%s", n, talops, out)
			}

			file, err := os.ReadFile(filepath.Join(repo, "schematics", "factory-44186a005dfc.yaml"))
			if err != nil {
				t.Fatal(err)
			}

			// Offline the file holds only the ID (opaque); online, the factory's schematic.
			if _, opaque := schematic.Opaque(file); opaque != offline || offline != strings.Contains(out, "import ran --offline") {
				t.Errorf("offline=%v: the schematic's file is opaque: %v, want %v, and the finding saying why:\n%s\n%s", offline, opaque, offline, file, out)
			}
		})
	}
}
