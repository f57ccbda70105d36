package migrate_test

import (
	"strings"
	"testing"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/configloader"

	"github.com/talops/talops/internal/migrate"
)

// worker is a worker's config: its v1alpha1 document with machineExtra under machine:,
// then docs.
func worker(t *testing.T, machineExtra, docs string) coreconfig.Provider {
	t.Helper()

	data := "version: v1alpha1\nmachine:\n  type: worker\n  token: abcdef.0123456789abcdef\n" + machineExtra +
		"cluster:\n  controlPlane:\n    endpoint: https://10.0.0.1:6443\n  discovery:\n    enabled: true\n    registries:\n      kubernetes:\n        disabled: true\n" + docs

	c, err := configloader.NewFromBytes([]byte(data))
	if err != nil {
		t.Fatal(err)
	}

	return c
}

func TestCompareLayouts_TellsAMoveFromAChange(t *testing.T) {
	t.Parallel()

	before := "  nodeLabels:\n    zone: a\n  sysctls:\n    net.core.somaxconn: \"1024\"\n"

	for _, tc := range []struct {
		name, machine, docs string
		want                string // the differences, comma-separated ("" for layout only)
	}{
		{
			name:    "labels moved to KubeNodeConfig: layout only",
			machine: "  sysctls:\n    net.core.somaxconn: \"1024\"\n",
			docs:    "---\napiVersion: v1alpha1\nkind: KubeNodeConfig\nlabels:\n  zone: a\n",
		},
		{
			name:    "a label changed beside the move: node.labels",
			machine: "  sysctls:\n    net.core.somaxconn: \"1024\"\n",
			docs:    "---\napiVersion: v1alpha1\nkind: KubeNodeConfig\nlabels:\n  zone: b\n",
			want:    "node.labels",
		},
		{
			name:    "a sysctl changed beside the move: named by machinery's accessor",
			machine: "  sysctls:\n    net.core.somaxconn: \"4096\"\n",
			docs:    "---\napiVersion: v1alpha1\nkind: KubeNodeConfig\nlabels:\n  zone: a\n",
			want:    "Machine.Sysctls.net.core.somaxconn,SysctlConfig.net.core.somaxconn",
		},
		{
			name:    "a document that sets nothing the node did not run: layout only",
			machine: before,
			docs:    "---\napiVersion: v1alpha1\nkind: SecurityProfileConfig\nworkloadIsolation: false\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			l := migrate.CompareLayouts(migrate.Node{Config: worker(t, before, "")}, migrate.Node{Config: worker(t, tc.machine, tc.docs)})
			if got := strings.Join(l.Differences, ","); got != tc.want {
				t.Errorf("differences %q, want %q", got, tc.want)
			}

			if l.LayoutOnly() != (tc.want == "") {
				t.Errorf("layout only %v with differences %q", l.LayoutOnly(), l.Differences)
			}

			if len(l.Inherent) > 0 {
				t.Errorf("a worker's move brings %q", l.Inherent)
			}
		})
	}
}

// Talos installs to the disk a selector matches when machine.install has both a disk and
// a selector: the selector, as an UnattendedInstallConfig, is the same install.
func TestCompare_AnInstallSelectorWinsOverTheDiskBesideIt(t *testing.T) {
	t.Parallel()

	both := worker(t, "  install:\n    disk: /dev/nvme0n1\n    diskSelector:\n      model: Samsung*\n", "")
	selector := worker(t, "", "---\napiVersion: v1alpha1\nkind: UnattendedInstallConfig\nprovisioning:\n  diskSelector:\n"+
		"    match: glob(\"Samsung*\", disk.model) && disk.transport != \"\" && !disk.readonly && !disk.cdrom\n  wipe: false\n")
	disk := worker(t, "", "---\napiVersion: v1alpha1\nkind: UnattendedInstallConfig\nprovisioning:\n  diskSelector:\n"+
		"    match: disk.dev_path == \"/dev/nvme0n1\"\n  wipe: false\n")

	if d := migrate.Compare(both, selector); len(d) > 0 {
		t.Errorf("the selector as a document differs: %+v", d)
	}

	if d := migrate.Compare(both, disk); len(d) != 1 || d[0].Setting != "install.disk" {
		t.Errorf("the disk as a document: %+v, want install.disk to differ", d)
	}
}

// Talos adds the control-plane endpoint's host to the API server's certificate by itself:
// an older contract's generator wrote it into certSANs, a newer one leaves it out, and the
// node serves the same certificate.
func TestCompare_TheEndpointHostInCertSANsIsNoDifference(t *testing.T) {
	t.Parallel()

	controlPlane := func(apiServer, docs string) coreconfig.Provider {
		data := "version: v1alpha1\nmachine:\n  type: controlplane\n  token: abcdef.0123456789abcdef\n" +
			"cluster:\n  controlPlane:\n    endpoint: https://10.0.0.10:6443\n" + apiServer + docs

		c, err := configloader.NewFromBytes([]byte(data))
		if err != nil {
			t.Fatal(err)
		}

		return c
	}

	before := controlPlane("  apiServer:\n    certSANs: [10.0.0.10, lab.example.org]\n", "")

	for _, tc := range []struct {
		name, apiServer string
		differs         bool
	}{
		{name: "the endpoint host left to Talos", apiServer: "  apiServer:\n    certSANs: [lab.example.org]\n"},
		{name: "the names in another order", apiServer: "  apiServer:\n    certSANs: [lab.example.org, 10.0.0.10]\n"},
		{name: "a name dropped", apiServer: "  apiServer:\n    certSANs: [10.0.0.10]\n", differs: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			after := controlPlane(tc.apiServer, "")

			d := migrate.Compare(before, after)
			if got := len(d) > 0; got != tc.differs {
				t.Errorf("differences %+v, want differing %v", d, tc.differs)
			}

			// Every accessor too: the list's items by index are no difference of their own.
			if l := migrate.CompareLayouts(migrate.Node{Config: before}, migrate.Node{Config: after}); l.LayoutOnly() == tc.differs {
				t.Errorf("layouts differ by %q, want differing %v", l.Differences, tc.differs)
			}
		})
	}
}
