package topf_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/importer/topf"
	"github.com/talops/talops/internal/testlab/hostile"
)

// FuzzImportTopf: no topf.yaml, and no patch template beside it, makes the import panic;
// one it imports starts with talops.yaml, and one it refuses has no result.
func FuzzImportTopf(f *testing.F) {
	for _, seed := range []struct{ config, patch string }{
		{"testdata/fields/topf.yaml", "testdata/fields/talos/all/10-region.yaml.tpl"},
		{"testdata/postfinance-example/topf.yaml", "testdata/postfinance-example/all/01-base.yaml.tpl"},
	} {
		config, err := os.ReadFile(seed.config)
		if err != nil {
			f.Fatal(err)
		}

		patch, err := os.ReadFile(seed.patch)
		if err != nil {
			f.Fatal(err)
		}

		f.Add(config, patch)
	}

	f.Add([]byte("clusterName: a\nclusterEndpoint: https://a:6443\nkubernetesVersion: 1.35.0\ntalosVersion: 1.13.3\nnodes: [{host: a, role: control-plane, data: &d {x: *d}}]\n"),
		[]byte("machine: {env: {A: '{{ .Node.Host | upper }}'}}\n"))
	f.Add([]byte("clusterName: a\nclusterEndpoint: https://a:6443\nkubernetesVersion: 1.35.0\ntalosVersion: 1.13.3\nx: "+hostile.AliasBomb(9)+"\nnodes: [{host: a, role: control-plane}]\n"),
		[]byte("machine:\n  kubelet:\n    extraConfig: "+hostile.AliasBomb(9)+"\n"))

	f.Fuzz(func(t *testing.T, config, patch []byte) {
		hostile.Bounded(t, func() {
			res, err := topf.Import(topf.Input{
				File: "topf.yaml", Data: config, Secrets: "secrets.sops.yaml",
				Lookup: func(name string) (string, bool) { return "v", name != "UNSET" },
				ReadFile: func(rel string) ([]byte, error) {
					if filepath.Ext(rel) == ".tpl" || filepath.Ext(rel) == ".yaml" {
						return patch, nil
					}

					return nil, fs.ErrNotExist
				},
				ListFiles: func(rel string) ([]string, error) {
					if rel == "all" || rel == "talos/all" {
						return []string{rel + "/01-patch.yaml.tpl"}, nil
					}

					return nil, nil
				},
			})

			switch {
			case err != nil && res != nil:
				t.Fatalf("a refused import has a result: %v", err)
			case err == nil && (len(res.Files) == 0 || res.Files[0].Path != cluster.FileName):
				t.Fatalf("an import without %s first", cluster.FileName)
			}

		})
	})
}
