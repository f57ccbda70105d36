package cli_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/siderolabs/talos/pkg/machinery/config/configloader"

	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/importer/importtest"
	"github.com/talops/talops/internal/migrate"
)

// talhelperCase is a real talhelper repository under the importer's testdata, with the
// output talhelper genconfig made from it (talhelper-genconfig/, refreshed by the oracle
// test: go test -tags talhelper) and the findings validate reports on the import.
type talhelperCase struct {
	dir string
	env map[string]string
	// outputs maps each node to talhelper's file for it.
	outputs map[string]string
	// real says the repository is a real public one (SOURCES.md): its import validates,
	// with no error.
	real bool
	// validateErrors are the error codes talops' rules find in the source's own choices,
	// validateWarnings the warning codes (each once, sorted).
	validateErrors, validateWarnings []string
	// knownDifferences are, by node, the differences between talhelper's output and
	// talops' render that the import cannot remove, each explained where it is listed.
	knownDifferences map[string][]string
	// bySettings compares what each node runs (migrate.Settings) instead of the documents:
	// on the 1.14 contract talhelper (machinery v1.14.0-alpha.2) keeps fields in the
	// v1alpha1 document that talops writes as documents, so only the settings can agree.
	bySettings bool
}

var talhelperCases = []talhelperCase{
	{
		// Written for the tests: what talhelper turns into documents on the 1.13 contract.
		dir:     "documents",
		outputs: map[string]string{"cp1": "docs-cp1.yaml", "w1": "docs-w1.yaml"},
	},
	{
		// Written for the tests: the fields the import maps, on the 1.11 contract.
		dir:     "fields",
		env:     map[string]string{"RACK": "r1", "MAP_COUNT": "262144", "UNSET_VAR": "10.0.0.99"},
		outputs: map[string]string{"cp1": "lab-cp1.yaml", "w1": "lab-w1.yaml"},
		// w1 is a nocloud node beside the metal cp1: its talosImageURL is the vanilla image
		// of its own platform, which talops names; machineFiles are machine.files.
		validateWarnings: []string{"config.warning"},
	},
	{
		// Written for the tests: the shapes of issue 25 (no talosVersion, merge keys, YAML 1.1
		// booleans, envsubst defaults, keys talhelper's types drop, machineDisks,
		// extraManifests, an inline patch ending in a block scalar), on talhelper's default
		// release.
		dir:     "shapes",
		outputs: map[string]string{"cp1": "shapes-cp1.yaml", "w1": "shapes-w1.yaml"},
		// The global patch writes machine.files, which Talos deprecates.
		validateWarnings: []string{"config.warning"},
	},
	{
		// Written for the tests: talhelper templates in role, node and global patches, in a
		// patch file (rendered before its variables are substituted) and in an extra manifest.
		dir:     "templates",
		outputs: map[string]string{"cp1": "templates-cp1.yaml", "w1": "templates-w1.yaml"},
	},
	{
		// Written for the tests: a talconfig at Talos 1.14, with the fields talhelper keeps in
		// v1alpha1 there and templates that read them.
		dir:        "contract114",
		outputs:    map[string]string{"cp1": "contract114-cp1.yaml", "w1": "contract114-w1.yaml"},
		bySettings: true,
		// talhelper names the secretbox key key1 on the 1.14 contract, Talos v1.14.1 key2: the
		// import keeps key1 to encrypt with and adds key2 to read with (secretboxKeyNames).
		knownDifferences: map[string][]string{"cp1": {"etcd.encryptionKeys"}},
	},
	{
		dir: "jfroy-flatops",
		outputs: map[string]string{
			"kantai1": "kantai-kantai1.yaml", "kantai2": "kantai-kantai2.yaml", "kantai3": "kantai-kantai3.yaml",
		},
		real: true,
		// kantai1 loads nvidia, nvidia_uvm and nvidia_modeset but not nvidia_drm, which
		// CUDA does not need (a warning); patches/global-07.yaml writes machine.files.
		validateWarnings: []string{"config.warning", "nvidia.modules-missing"},
	},
	{
		dir: "lukeevans-talos-cluster",
		env: map[string]string{"TALOS_LUKS_FALLBACK": "fallback-passphrase-for-tests"},
		outputs: map[string]string{
			"cr-talos-01": "kubernetes-cr-talos-01.yaml", "cr-talos-02": "kubernetes-cr-talos-02.yaml", "cr-talos-03": "kubernetes-cr-talos-03.yaml",
		},
		real: true,
		// The nodes install talosImageURL, whose schematic is schematic.yaml beside the
		// talconfig; patches/global/machine-files.yaml writes machine.files, and
		// patches/global/machine-network.yaml an empty search domain list.
		validateWarnings: []string{"config.warning", "contract.search-domains-cleared"},
		// patches/global/machine-network.yaml writes searchDomains: {domains: []}: talops
		// (Talos machinery v1.14.1) keeps the empty list the patch writes, talhelper
		// v3.1.16's output has no searchDomains at all.
		knownDifferences: map[string][]string{
			"cr-talos-01": {"ResolverConfig: differs at line 5 (searchDomains)"},
			"cr-talos-02": {"ResolverConfig: differs at line 5 (searchDomains)"},
			"cr-talos-03": {"ResolverConfig: differs at line 5 (searchDomains)"},
		},
	},
}

// talhelperCaseOf is the case of a directory.
func talhelperCaseOf(dir string) talhelperCase {
	for _, tc := range talhelperCases {
		if tc.dir == dir {
			return tc
		}
	}

	panic("no talhelper case " + dir)
}

func talhelperTestdata(dir string) string {
	return filepath.Join("..", "importer", "talhelper", "testdata", dir)
}

// importAndRender imports a case into a new directory and renders it; it returns the
// repository, the rendered directory and import's output.
func importAndRender(t *testing.T, h *diskHarness, src string, extra ...string) (repo, rendered, out string) {
	t.Helper()

	repo = filepath.Join(t.TempDir(), "repo")
	rendered = filepath.Join(t.TempDir(), "rendered")

	if err := h.run(append([]string{"import", "talhelper", "--from", src, "--out", repo}, extra...)...); err != nil {
		t.Fatalf("import: %v\n%s%s", err, h.stdout.String(), h.stderr.String())
	}

	out = h.stdout.String()

	if err := h.run("render", "--dir", repo, "--out", rendered); err != nil {
		t.Fatalf("render: %v\n%s", err, h.stderr.String())
	}

	return repo, rendered, out
}

// compareNodes holds every node's render to talhelper's output for it: the differences
// are exactly the known ones.
func compareNodes(t *testing.T, rendered, talhelperDir string, tc talhelperCase) {
	t.Helper()

	outputs, known := tc.outputs, tc.knownDifferences

	for node, file := range outputs {
		want, err := os.ReadFile(filepath.Join(talhelperDir, file))
		if err != nil {
			t.Fatal(err)
		}

		got, err := os.ReadFile(filepath.Join(rendered, node+".yaml"))
		if err != nil {
			t.Fatal(err)
		}

		var diffs []string
		if tc.bySettings {
			diffs, err = settingsDiffer(want, got)
		} else {
			diffs, err = importtest.Compare(want, got)
		}

		if err != nil {
			t.Fatalf("%s: %v", node, err)
		}

		if !slices.Equal(diffs, known[node]) {
			t.Errorf("%s: differs from talhelper's output: want %q, got %q", node, known[node], diffs)
		}
	}
}

func TestImportTalhelper_RendersWhatTalhelperGeneratesNodeByNode(t *testing.T) {
	for _, tc := range talhelperCases {
		t.Run(tc.dir, func(t *testing.T) {
			h := newDiskHarness(t)
			maps.Copy(h.env, tc.env)

			src := talhelperTestdata(tc.dir)
			_, rendered, _ := importAndRender(t, h, src, "--plaintext-secrets")

			compareNodes(t, rendered, filepath.Join(src, "talhelper-genconfig"), tc)
		})
	}
}

func TestImportTalhelper_ValidateFindsOnlyTheSourcesOwnProblems(t *testing.T) {
	for _, tc := range talhelperCases {
		t.Run(tc.dir, func(t *testing.T) {
			h := newDiskHarness(t)
			maps.Copy(h.env, tc.env)

			repo, _, _ := importAndRender(t, h, talhelperTestdata(tc.dir), "--plaintext-secrets")

			err := h.run("validate", "--dir", repo, "--offline", "--format", "json")

			var failed *cli.FailedError
			if len(tc.validateErrors) > 0 && !errors.As(err, &failed) {
				t.Fatalf("validate: want the errors %v, got %v", tc.validateErrors, err)
			}

			if len(tc.validateErrors) == 0 && err != nil {
				t.Fatalf("validate: %v\n%s", err, h.stdout.String())
			}

			if got := codes(t, h.stdout.String(), "error"); !slices.Equal(got, tc.validateErrors) {
				t.Fatalf("validate's error codes: want %v, got %v\n%s", tc.validateErrors, got, h.stdout.String())
			}

			if got := codes(t, h.stdout.String(), "warning"); !slices.Equal(got, tc.validateWarnings) {
				t.Fatalf("validate's warning codes: want %v, got %v\n%s", tc.validateWarnings, got, h.stdout.String())
			}
		})
	}
}

// TestImportTalhelper_RealRepositoriesValidateAndRenderTalhelpersOutput: what issue 15 asks
// of every real repository, on one import: talops validate passes, and the render is
// talhelper's, node by node.
func TestImportTalhelper_RealRepositoriesValidateAndRenderTalhelpersOutput(t *testing.T) {
	realRepos := 0

	for _, tc := range talhelperCases {
		if !tc.real {
			continue
		}

		realRepos++

		t.Run(tc.dir, func(t *testing.T) {
			h := newDiskHarness(t)
			maps.Copy(h.env, tc.env)

			src := talhelperTestdata(tc.dir)
			repo, rendered, _ := importAndRender(t, h, src, "--plaintext-secrets")

			if err := h.run("validate", "--dir", repo, "--offline", "--format", "json"); err != nil {
				t.Fatalf("validate: %v\n%s", err, h.stdout.String())
			}

			if got := codes(t, h.stdout.String(), "error"); len(got) > 0 {
				t.Fatalf("validate passed with the errors %v", got)
			}

			compareNodes(t, rendered, filepath.Join(src, "talhelper-genconfig"), tc)
		})
	}

	if realRepos != 2 {
		t.Fatalf("want the two real repositories of SOURCES.md, got %d", realRepos)
	}
}

// codes are the distinct codes of validate's JSON findings of a severity, sorted.
func codes(t *testing.T, out, severity string) []string {
	t.Helper()

	var v struct {
		Findings []struct{ Severity, Code string }
	}

	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("validate's JSON: %v\n%s", err, out)
	}

	var codes []string

	for _, f := range v.Findings {
		if f.Severity == severity && !slices.Contains(codes, f.Code) {
			codes = append(codes, f.Code)
		}
	}

	slices.Sort(codes)

	return codes
}

// settingsDiffer names the settings (migrate.Settings) two configs run differently.
func settingsDiffer(want, got []byte) ([]string, error) {
	w, err := configloader.NewFromBytes(want)
	if err != nil {
		return nil, fmt.Errorf("load the expected config: %w", err)
	}

	g, err := configloader.NewFromBytes(got)
	if err != nil {
		return nil, fmt.Errorf("load the config compared: %w", err)
	}

	var out []string
	for _, d := range migrate.Compare(w, g) {
		out = append(out, d.Setting)
	}

	return out, nil
}
