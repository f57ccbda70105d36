package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/talops/talops/internal/talos/talostest"
	"github.com/talops/talops/internal/testlab"
)

// A node installed from an image that is not the factory's reports no schematic
// extension: with a vanilla target and the target version it runs what talops.yaml asks,
// while a target with extensions is still an upgrade.
func TestPlanLive_NodeWithoutSchematicExtension(t *testing.T) {
	for _, tc := range []struct {
		name, schematic, want, reason string
	}{
		{"VanillaTargetIsNoUpgrade", "", "noop", ""},
		{"TargetWithExtensionsIsAnUpgrade", "    schematic: base\n", "upgrade", "installer schematic vanilla (installed from a non-factory image) → base"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := testlab.Files(t)
			testlab.Edit(t, files, "talops.yaml", "    schematic: base\n    installDisk: /dev/sda\n    patches: [nodes/k8s-master.yaml]", tc.schematic+"    installDisk: /dev/sda\n    patches: [nodes/k8s-master.yaml]")

			r := newHarness(t, files, nil)
			if err := r.run("render", "--dir", "examples/homelab", "--out", "out"); err != nil {
				t.Fatal(err)
			}

			ca := talostest.NewCA(t)
			master := talostest.Start(t, ca, talostest.Node{Config: r.written[filepath.Join("out", "k8s-master.yaml")], Version: testlab.Talos})

			l := &liveLab{ca: ca, talosconfig: filepath.Join(t.TempDir(), "talosconfig")}
			l.writeTalosconfig(t, ca.ClientCert(t))
			l.h = newHarness(t, files, map[string]string{"TALOSCONFIG": l.talosconfig})
			l.h.deps.TalosEndpoint = func(string) string { return master.Addr }

			for _, n := range l.plan(t).Nodes {
				if n.Name == "k8s-master" && (n.Action != tc.want || tc.reason != "" && !strings.HasPrefix(strings.Join(n.Reasons, "; "), tc.reason)) {
					t.Errorf("k8s-master: %s %v, want %s %s", n.Action, n.Reasons, tc.want, tc.reason)
				}
			}
		})
	}
}
