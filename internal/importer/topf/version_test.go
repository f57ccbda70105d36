package topf_test

import (
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/importer/topf"
	"github.com/talops/talops/internal/schematic"
)

const vanilla = schematic.VanillaID

// topf falls back to the release it was built with where topf.yaml names none: the import
// takes --talos-version there, and without it refuses in one line that names the file,
// the field and both ways to give the release.
func TestImport_TopfYAMLWithoutTalosVersionTakesTheFlag(t *testing.T) {
	const base = "clusterName: a\nclusterEndpoint: https://a:6443\nkubernetesVersion: 1.35.0\n"

	for _, tc := range []struct {
		name, topfYAML, flag string
		// talos is talops.yaml's talosVersion; err the start of the refusal ("": none).
		talos, err string
		// note is a part of the talosVersion finding ("": none).
		note string
	}{
		{
			name: "no talosVersion and no flag: refused, naming both ways", topfYAML: base + "nodes: [{host: a, role: worker}]\n",
			err: "topf.yaml:1: talosVersion: not set, and topf then uses the Talos release it was built with",
		},
		{
			name: "no talosVersion: the flag's release", topfYAML: base + "nodes: [{host: a, role: worker}]\n", flag: "v1.13.3",
			talos: "v1.13.3", note: "not set: talops.yaml takes v1.13.3, given with --talos-version",
		},
		{
			name: "no talosVersion: the flag's release without its v", topfYAML: base + "nodes: [{host: a, role: worker}]\n", flag: "1.14.1",
			talos: "v1.14.1", note: "given with --talos-version",
		},
		{
			name: "topf.yaml's release wins over a different flag", topfYAML: base + "talosVersion: 1.13.3\nnodes: [{host: a, role: worker}]\n", flag: "v1.14.1",
			talos: "v1.13.3", note: "--talos-version v1.14.1 is for a topf.yaml that names none",
		},
		{
			name: "topf.yaml's release and the same flag: nothing to say", topfYAML: base + "talosVersion: 1.13.3\nnodes: [{host: a, role: worker}]\n", flag: "v1.13.3",
			talos: "v1.13.3",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := topf.Import(topf.Input{
				File: "topf.yaml", Data: []byte(tc.topfYAML), TalosVersion: tc.flag,
				ListFiles: func(string) ([]string, error) { return nil, nil },
				ReadFile:  func(string) ([]byte, error) { return nil, fs.ErrNotExist },
			})

			if tc.err != "" {
				var ie *cluster.InputError
				if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("want an input error %q…, got %v", tc.err, err)
				}

				for _, want := range []string{"--talos-version", "--talosconfig"} {
					if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
						t.Errorf("the refusal is not one line naming %s: %q", want, err)
					}
				}

				return
			}

			if err != nil {
				t.Fatal(err)
			}

			if got := talopsSpec(t, res).TalosVersion; got != tc.talos {
				t.Errorf("talosVersion = %q, want %q", got, tc.talos)
			}

			var notes []string

			for _, f := range res.Findings {
				if f.Path == "talosVersion" {
					notes = append(notes, f.Message)
				}
			}

			if tc.note == "" && len(notes) > 0 || tc.note != "" && (len(notes) != 1 || !strings.Contains(notes[0], tc.note)) {
				t.Errorf("talosVersion findings %q, want one saying %q", notes, tc.note)
			}
		})
	}
}

// topf names every node's installer <factory>/<platform>-installer[-secureboot]/<id>:<version>,
// the name talops gives by default: the import keeps it by writing no installer setting,
// and talops.yaml names the image topf installed.
func TestImport_TopfsInstallerNamesAreKept(t *testing.T) {
	const base = "clusterName: a\nclusterEndpoint: https://a:6443\nkubernetesVersion: 1.35.0\ntalosVersion: 1.13.3\n"

	for _, tc := range []struct {
		name, topfYAML string
		// topf is the installer topf names for node a.
		topf string
	}{
		{name: "the defaults", topfYAML: base + "nodes: [{host: a, role: worker}]\n", topf: "factory.talos.dev/metal-installer/" + vanilla + ":v1.13.3"},
		{name: "the cluster's platform", topfYAML: base + "platform: nocloud\nnodes: [{host: a, role: worker}]\n", topf: "factory.talos.dev/nocloud-installer/" + vanilla + ":v1.13.3"},
		{name: "secure boot", topfYAML: base + "secureboot: true\nnodes: [{host: a, role: worker}]\n", topf: "factory.talos.dev/metal-installer-secureboot/" + vanilla + ":v1.13.3"},
		{name: "a node's platform and secure boot", topfYAML: base + "nodes: [{host: a, role: worker, platform: aws, secureboot: true}]\n", topf: "factory.talos.dev/aws-installer-secureboot/" + vanilla + ":v1.13.3"},
		{name: "another factory", topfYAML: base + "factory: factory.lab:5000\nnodes: [{host: a, role: worker}]\n", topf: "factory.lab:5000/metal-installer/" + vanilla + ":v1.13.3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := talopsSpec(t, importText(t, tc.topfYAML))
			if spec.Installer != "" {
				t.Errorf("installer = %q, want none: topf's name is talops' own", spec.Installer)
			}

			c := &cluster.Cluster{Spec: spec}
			n := spec.Nodes[0]

			if got := schematic.Installer(c.ImageFactory(), c.NodeInstaller(n, spec.TalosVersion), vanilla, spec.TalosVersion, n.SecureBoot); got != tc.topf {
				t.Errorf("talops names %s, topf %s", got, tc.topf)
			}
		})
	}
}
