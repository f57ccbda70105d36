package talhelper_test

import (
	"maps"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
)

// urlNode is a talconfig node with a talosImageURL (none when url is "") and a machineSpec.
func urlNode(name, ip, mode string, secureBoot bool, url string) string {
	n := "  - hostname: " + name + "\n    ipAddress: " + ip + "\n"
	if mode != "" || secureBoot {
		n += "    machineSpec:\n"
		if mode != "" {
			n += "      mode: " + mode + "\n"
		}

		if secureBoot {
			n += "      secureboot: true\n"
		}
	}

	if url != "" {
		n += "    talosImageURL: " + url + "\n"
	}

	return n
}

// Every node keeps the installer repository its talosImageURL names: talops.yaml's
// installer (the cluster's, else its schematic's) names it where it is not the platform's,
// so the node's config is talhelper's and its installer still follows talosVersion; only
// an installer no setting can name for the node stays in its patch.
func TestImport_TalosImageURLKeepsItsInstallerName(t *testing.T) {
	for _, tc := range []struct {
		name  string
		nodes string
		files map[string]string
		// installer is talops.yaml's, schematics each schematic's installer by name.
		installer  string
		schematics map[string]string
		// patched are the nodes whose patch keeps the URL.
		patched []string
	}{
		{
			name:      "installer/ on every node: the cluster's installer",
			nodes:     urlNode("n1", "10.0.0.11", "", false, "factory.talos.dev/installer/"+gpuID) + urlNode("n2", "10.0.0.12", "", false, "factory.talos.dev/installer/"+gpuID),
			files:     map[string]string{"schematic.yaml": gpuSchematic},
			installer: "installer", schematics: map[string]string{"schematic": ""},
		},
		{
			name:      "installer-secureboot/ on secure boot nodes: the cluster's installer",
			nodes:     urlNode("n1", "10.0.0.11", "", true, "factory.talos.dev/installer-secureboot/"+vanillaID) + urlNode("n2", "10.0.0.12", "", true, "factory.talos.dev/installer-secureboot/"+vanillaID),
			installer: "installer",
		},
		{
			name:  "metal-installer/: the platform's name, nothing to write",
			nodes: urlNode("n1", "10.0.0.11", "", false, "factory.talos.dev/metal-installer/"+vanillaID) + urlNode("n2", "10.0.0.12", "", false, ""),
		},
		{
			name:  "a platform's installer on its nodes: the platform's name, nothing to write",
			nodes: urlNode("n1", "10.0.0.11", "", false, "") + urlNode("n2", "10.0.0.12", "nocloud", false, "factory.talos.dev/nocloud-installer/"+vanillaID),
		},
		{
			name:  "installer/ beside a node talops names the default for: the schematic's installer",
			nodes: urlNode("n1", "10.0.0.11", "", false, "factory.talos.dev/installer/"+gpuID) + urlNode("n2", "10.0.0.12", "", false, ""),
			files: map[string]string{"schematic.yaml": gpuSchematic}, schematics: map[string]string{"schematic": "installer"},
		},
		{
			name:    "installer/ of the vanilla image beside such a node: no schematic to name it, the patch keeps it",
			nodes:   urlNode("n1", "10.0.0.11", "", false, "factory.talos.dev/installer/"+vanillaID) + urlNode("n2", "10.0.0.12", "", false, ""),
			patched: []string{"n1"},
		},
		{
			name:    "installer/ on a nocloud node: another platform's image, the patch keeps it",
			nodes:   urlNode("n1", "10.0.0.11", "nocloud", false, "factory.talos.dev/installer/"+vanillaID) + urlNode("n2", "10.0.0.12", "nocloud", false, ""),
			patched: []string{"n1"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := importText(t, head+"nodes:\n"+tc.nodes, tc.files, nil)

			c, err := cluster.Parse([]byte(written(t, res, "talops.yaml")))
			if err != nil {
				t.Fatalf("talops.yaml does not parse: %v", err)
			}

			if c.Spec.Installer != tc.installer {
				t.Errorf("installer = %q, want %q", c.Spec.Installer, tc.installer)
			}

			got := map[string]string{}
			for name, s := range c.Spec.Schematics {
				got[name] = s.Installer
			}

			if !maps.Equal(got, tc.schematics) && (len(got) > 0 || len(tc.schematics) > 0) {
				t.Errorf("schematics' installers = %v, want %v", got, tc.schematics)
			}

			for _, n := range []string{"n1", "n2"} {
				patch, _ := fileOf(res, "nodes/"+n+"-talhelper.yaml")
				patched := strings.Contains(patch, "/machine/install/image")
				want := strings.Contains(strings.Join(tc.patched, " "), n)

				if patched != want {
					t.Errorf("%s: its patch keeps the URL: %v, want %v\n%s", n, patched, want, patch)
				}
			}

			for _, f := range res.Findings {
				if strings.HasSuffix(f.Path, "talosImageURL") && strings.Contains(f.Message, "metal-installer") {
					t.Errorf("a finding renames the installer: %+v", f)
				}
			}
		})
	}
}
