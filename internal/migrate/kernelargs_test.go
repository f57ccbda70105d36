package migrate_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/migrate"
)

// The fields repository's shape (talhelper writes a node's schematic kernel arguments into
// machine.install.extraKernelArgs too, as an RFC 6902 patch): no 1.14 document has them,
// and the schematic, their one place from 1.14, carries them already, so they go and the
// move says where they are. An argument the schematic lacks keeps the patch as it is and
// says what to add.
func TestRewrite_KernelArgumentsTheSchematicCarriesGo(t *testing.T) {
	t.Parallel()

	patch := "- op: add\n  path: /machine/nodeLabels\n  value:\n    rack: r1\n- op: add\n  path: /machine/install/extraKernelArgs\n  value:\n    - net.ifnames=0\n"

	for _, tc := range []struct {
		name      string
		schematic []string
		left      string // the reason left, "" when the arguments go
	}{
		{name: "the schematic carries them", schematic: []string{"console=ttyS0", "net.ifnames=0"}},
		{name: "the schematic lacks one", schematic: []string{"console=ttyS0"}, left: "does not carry net.ifnames=0"},
		{name: "no schematic", left: "add them to its customization.extraKernelArgs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			res, err := migrate.Rewrite(migrate.Input{
				From: "v1.11", Target: "v1.14", Talops: []byte("configVersion: v1.11\n"),
				Patches: []migrate.Patch{{Path: "nodes/cp1-talhelper.yaml", Data: []byte(patch), ControlPlanes: 1, SchematicKernelArgs: tc.schematic}},
			})
			if err != nil {
				t.Fatal(err)
			}

			var got string

			for _, f := range res.Files {
				if f.Path == "nodes/cp1-talhelper.yaml" {
					got = string(f.Data)
				}
			}

			if tc.left == "" {
				want := "apiVersion: v1alpha1\nkind: KubeNodeConfig\nlabels:\n  node-role.kubernetes.io/control-plane: \"\"\n  rack: r1\ntaints:\n  node-role.kubernetes.io/control-plane: NoSchedule\n"
				if got != want || len(res.Left) > 0 {
					t.Errorf("rewritten:\n%s\nwant:\n%s\nleft %+v", got, want, res.Left)
				}

				if !hasMove(res, "machine.install.extraKernelArgs", "the schematic's extraKernelArgs (there already)") {
					t.Errorf("moved %+v, want the arguments said to be the schematic's", res.Moved)
				}

				return
			}

			if len(res.Left) != 1 || res.Left[0].Path != "machine.install" || !strings.Contains(res.Left[0].Reason, tc.left) {
				t.Errorf("left %+v, want machine.install saying %q", res.Left, tc.left)
			}

			if !strings.Contains(got, "extraKernelArgs") {
				t.Errorf("the arguments went though the schematic lacks them:\n%s", got)
			}
		})
	}
}

func hasMove(res *migrate.Result, from, to string) bool {
	for _, m := range res.Moved {
		if m.From == from && m.To == to {
			return true
		}
	}

	return false
}

// The proof reads the kernel arguments a node boots with as its schematic's and
// machine.install's together: arguments that leave machine.install for a schematic that
// carries them are no difference; without the schematic they are.
func TestCompareLayouts_KernelArgumentsAreTheSchematicsAndTheInstallsTogether(t *testing.T) {
	t.Parallel()

	before := worker(t, "  install:\n    extraKernelArgs: [net.ifnames=0]\n", "")
	after := worker(t, "", "")

	for _, tc := range []struct {
		name                  string
		beforeArgs, afterArgs []string
		want                  string
	}{
		{name: "the schematic carries them before and after", beforeArgs: []string{"net.ifnames=0"}, afterArgs: []string{"net.ifnames=0"}},
		{name: "the schematic did not carry them", afterArgs: []string{"net.ifnames=0"}},
		{name: "no schematic carries them after", beforeArgs: []string{"net.ifnames=0"}, want: "install.extraKernelArgs"},
		{name: "the schematic carries another", beforeArgs: []string{"console=ttyS0"}, afterArgs: []string{"console=ttyS0"}, want: "install.extraKernelArgs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			l := migrate.CompareLayouts(migrate.Node{Config: before, SchematicKernelArgs: tc.beforeArgs}, migrate.Node{Config: after, SchematicKernelArgs: tc.afterArgs})
			if got := strings.Join(l.Differences, ","); got != tc.want {
				t.Errorf("differences %q, want %q", got, tc.want)
			}
		})
	}
}

// A v1alpha1 stableHostname beside a hostname becomes HostnameConfig's auto: off (it
// refuses both): the node takes the name it is given over any automatic one, so the kind
// of automatic name is no difference while the names are the same.
func TestCompareLayouts_TheAutomaticHostnameKindBesideANameIsNoDifference(t *testing.T) {
	t.Parallel()

	before := worker(t, "  network:\n    hostname: cp1\n  features:\n    stableHostname: true\n", "")

	for _, tc := range []struct{ name, hostname, want string }{
		{name: "the same name", hostname: "cp1"},
		{name: "another name", hostname: "cp2", want: "hostname"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			after := worker(t, "  features:\n    stableHostname: true\n", "---\napiVersion: v1alpha1\nkind: HostnameConfig\nauto: \"off\"\nhostname: "+tc.hostname+"\n")

			l := migrate.CompareLayouts(migrate.Node{Config: before}, migrate.Node{Config: after})
			if got := strings.Join(l.Differences, ","); got != tc.want {
				t.Errorf("differences %q, want %q", got, tc.want)
			}
		})
	}
}
