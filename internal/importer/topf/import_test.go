package topf_test

import (
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/importer/topf"
	"github.com/talops/talops/internal/testlab"
)

var update = flag.Bool("update", false, "rewrite golden files")

// input reads a topf repository under testdata as the app hands it over.
func input(t *testing.T, dir string, env map[string]string) topf.Input {
	t.Helper()

	root := filepath.Join("testdata", dir)

	data, err := os.ReadFile(filepath.Join(root, "topf.yaml"))
	if err != nil {
		t.Fatal(err)
	}

	return topf.Input{
		File: "topf.yaml", Data: data, Secrets: "secrets.sops.yaml",
		Lookup: func(name string) (string, bool) {
			v, ok := env[name]

			return v, ok
		},
		ReadFile:  func(rel string) ([]byte, error) { return os.ReadFile(filepath.Join(root, filepath.FromSlash(rel))) },
		ListFiles: func(rel string) ([]string, error) { return list(root, rel) },
	}
}

func list(root, rel string) ([]string, error) {
	var out []string

	err := filepath.WalkDir(filepath.Join(root, filepath.FromSlash(rel)), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}

		if d.Type().IsRegular() {
			r, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(r))
		}

		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}

	return out, err
}

// show is a result as the golden file holds it: every file, then every finding.
func show(res *topf.Result) string {
	var b strings.Builder

	for _, f := range res.Files {
		b.WriteString("=== " + f.Path + "\n" + string(f.Data))
	}

	b.WriteString("=== findings\n")

	for _, f := range res.Findings {
		line := "-"
		if f.Line > 0 {
			line = strconv.Itoa(f.Line)
		}

		b.WriteString(strings.Join([]string{string(f.Severity), f.Code, f.File, line, f.Node, f.Path, f.Message}, " | ") + "\n")
	}

	return b.String()
}

// TestImport_PostfinanceExample: topf's own example repository. The hostname template
// renders per node, so all/ becomes each node's list; the schematic is the vanilla one
// (schematicId is commented out); LOG_ENDPOINT set makes the logging template count and
// is reported as substituted, REGISTRY_MIRROR unset leaves its template empty.
func TestImport_PostfinanceExample(t *testing.T) {
	res, err := topf.Import(input(t, "postfinance-example", map[string]string{"LOG_ENDPOINT": "udp://10.0.0.5:514"}))
	if err != nil {
		t.Fatal(err)
	}

	testlab.Golden(t, "postfinance-example.golden", show(res), *update)
}

// TestImport_EveryFieldIsMappedOrReportedAtItsLine: node overrides, a templated
// schematic that differs per node, patchesDir, shared and per-node templates, and what
// talops cannot express (an ID for a schematic, a second platform or Talos version, a
// SOPS patch, a vals reference, an unknown sprig function, unknown keys) at its line.
func TestImport_EveryFieldIsMappedOrReportedAtItsLine(t *testing.T) {
	res, err := topf.Import(input(t, "fields", nil))
	if err != nil {
		t.Fatal(err)
	}

	testlab.Golden(t, "fields.golden", show(res), *update)
}

// TestImport_TalopsYAMLLoads: what the import writes is a talops repository talops reads,
// every node with its patches.
func TestImport_TalopsYAMLLoads(t *testing.T) {
	for _, dir := range []string{"postfinance-example", "fields", "schematics"} {
		t.Run(dir, func(t *testing.T) {
			res, err := topf.Import(input(t, dir, nil))
			if err != nil {
				t.Fatal(err)
			}

			files := cluster.MapFiles{"secrets.sops.yaml": []byte("{}\n")}
			for _, f := range res.Files {
				files[f.Path] = f.Data
			}

			c, err := cluster.Load("lab", files)
			if err != nil {
				t.Fatalf("talops.yaml does not load: %v", err)
			}

			for _, n := range c.Spec.Nodes {
				for _, p := range c.NodePatches(n) {
					if _, ok := files[p]; !ok {
						t.Errorf("node %s names %s, which the import did not write", n.Name, p)
					}
				}
			}
		})
	}
}

func TestImport_RefusesWhatTopfRefusesWithItsLine(t *testing.T) {
	const head = "clusterName: a\nclusterEndpoint: https://a:6443\nkubernetesVersion: 1.35.0\ntalosVersion: 1.13.3\n"

	for _, tc := range []struct {
		name, topfYAML, want string
	}{
		{"no YAML", "a: [", "topf.yaml: not YAML"},
		{"no talos version", "clusterName: a\nclusterEndpoint: https://a:6443\nkubernetesVersion: 1.35.0\nnodes: [{host: a, role: worker}]\n", "topf.yaml:1: talosVersion: not set"},
		{"no nodes", head, "topf.yaml:1: nodes: no nodes"},
		{"a node without host", head + "nodes:\n  - role: worker\n", "topf.yaml:6: nodes[0].host: required"},
		{"an unknown role", head + "nodes:\n  - host: a\n    role: master\n", "topf.yaml:7: nodes[0].role: is \"master\""},
		{"a bad ip", head + "nodes:\n  - host: a\n    ip: a.b\n    role: worker\n", "topf.yaml:7: nodes[0].ip: not an IP"},
		{"configDir", head + "configDir: x\nnodes:\n  - host: a\n    role: worker\n", "topf.yaml:5: configDir: deprecated"},
		{"patchesDir outside", head + "patchesDir: ../x\nnodes:\n  - host: a\n    role: worker\n", "topf.yaml:5: patchesDir: ../x is outside"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := topf.Import(topf.Input{
				File: "topf.yaml", Data: []byte(tc.topfYAML),
				ListFiles: func(string) ([]string, error) { return nil, nil },
				ReadFile:  func(string) ([]byte, error) { return nil, fs.ErrNotExist },
			})

			var ie *cluster.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("want an input error, got %v", err)
			}

			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("want %q…, got %q", tc.want, err.Error())
			}
		})
	}
}

// TestImport_JSONPatchIsRefusedAsTopfRefusesIt names the file.
func TestImport_JSONPatchIsRefusedAsTopfRefusesIt(t *testing.T) {
	files := map[string]string{"all/01-json.yaml": "- op: add\n  path: /machine/env\n  value: {}\n"}

	_, err := topf.Import(topf.Input{
		File: "topf.yaml", Data: []byte("clusterName: a\nclusterEndpoint: https://a:6443\nkubernetesVersion: 1.35.0\ntalosVersion: 1.13.3\nnodes: [{host: a, role: worker}]\n"),
		ListFiles: func(rel string) ([]string, error) {
			if rel == "all" {
				return []string{"all/01-json.yaml"}, nil
			}

			return nil, nil
		},
		ReadFile: func(rel string) ([]byte, error) { return []byte(files[rel]), nil },
	})
	if err == nil || !strings.HasPrefix(err.Error(), "all/01-json.yaml: as rendered for node a: document 0 is a list") {
		t.Fatalf("want the JSON patch refused with its file, got %v", err)
	}
}
