package talhelper_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/importer/talhelper"
	"github.com/talops/talops/internal/testlab/hostile"
)

// FuzzImportTalhelper: no talconfig makes the import panic; one it imports starts with
// talops.yaml, and one it refuses is refused as an input error or with no result.
func FuzzImportTalhelper(f *testing.F) {
	for _, dir := range []string{"fields", "documents", "shapes", "jfroy-flatops", "lukeevans-talos-cluster"} {
		data, err := os.ReadFile(filepath.Join("testdata", dir, "talconfig.yaml"))
		if err != nil {
			f.Fatal(err)
		}

		f.Add(data)
	}

	for _, s := range []string{
		head + "x: &a {installDisk: /dev/sda, controlPlane: yes}\nnodes:\n  - <<: *a\n    hostname: n1\n",
		head + "x: &if {interface: bond0, vlans: [{vlanId: 2}]}\nnodes:\n  - hostname: n1\n    networkInterfaces: [{<<: *if}]\n",
		head + "nodes:\n  - hostname: n1\n    ipAddress: ${IP:-10.0.0.1}\n    extraManifests: [a.yaml]\n    machineDisks: [{device: /dev/sdb}]\n",
		"clusterName: a\nendpoint: https://a:6443\nkubernetesVersion: v1.35.0\nnodes: [{hostname: a, <<: [*x]}]\n",
		head + "nodes:\n  - &n {hostname: n1, <<: *n}\n",
		head + "x: " + hostile.AliasBomb(9) + "\nnodes:\n  - hostname: n1\n",
	} {
		f.Add([]byte(s))
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		hostile.Bounded(t, func() {
			res, err := talhelper.Import(talhelper.Input{
				File: "talconfig.yaml", Data: data, Secrets: "secrets.sops.yaml",
				Lookup:    func(name string) (string, bool) { return "v", name != "UNSET" },
				ReadPatch: func(string) ([]byte, error) { return []byte("machine:\n  env:\n    A: b # ${V}\n"), nil },
			})

			var ie *cluster.InputError

			switch {
			case err != nil && res != nil:
				t.Fatalf("a refused import has a result: %v", err)
			case err != nil && !errors.As(err, &ie):
				t.Logf("refused otherwise than as an input error: %v", err)
			case err == nil && (len(res.Files) == 0 || res.Files[0].Path != cluster.FileName):
				t.Fatalf("an import without %s first", cluster.FileName)
			}
		})
	})
}
