package render_test

import (
	"strings"
	"testing"

	"github.com/siderolabs/talos/pkg/machinery/config/types/runtime"

	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/schematic"
	"github.com/talops/talops/internal/testlab"
)

// labIDs are the IDs of the reference lab's schematics.
func labIDs(t *testing.T) map[string]string {
	t.Helper()

	ids, err := render.SchematicIDs(testlab.Load(t, testlab.Files(t)))
	if err != nil {
		t.Fatal(err)
	}

	return ids
}

// The lab keeps the 1.13 config contract on Talos 1.14 (its configVersion pin).
func TestRender_Contract113PutsTheSchematicInstallerInMachineInstall(t *testing.T) {
	rs := renderLab(t, testlab.Files(t))
	ids := labIDs(t)

	for name, sch := range map[string]string{"k8s-master": "base", "k8s-node1": "gpu"} {
		n := node(t, rs, name)
		want := "factory.talos.dev/nocloud-installer/" + ids[sch] + ":" + testlab.Talos

		if n.Installer != want || n.Config.Machine().Install().Image() != want {
			t.Errorf("%s: installer %q, machine.install.image %q, want %s", name, n.Installer, n.Config.Machine().Install().Image(), want)
		}

		if n.Config.UnattendedInstallConfig() != nil {
			t.Errorf("%s: UnattendedInstallConfig on the 1.13 contract", name)
		}
	}
}

func TestRender_Contract114PutsTheSchematicInstallerInUnattendedInstallConfig(t *testing.T) {
	files := testlab.Files(t)
	testlab.Unpin(t, files)
	testlab.SetVersions(t, files, "v1.14.1", "")

	rs := renderLab(t, files)
	ids := labIDs(t)

	n := node(t, rs, "k8s-node1")
	want := "factory.talos.dev/nocloud-installer/" + ids["gpu"] + ":v1.14.1"

	u, ok := n.Config.UnattendedInstallConfig().(*runtime.UnattendedInstallConfigV1Alpha1)
	if !ok {
		t.Fatalf("no UnattendedInstallConfig document in k8s-node1's 1.14 config")
	}

	if u.Installer.Image != want {
		t.Errorf("UnattendedInstallConfig installer.image = %s, want %s", u.Installer.Image, want)
	}

	if img := n.Config.Machine().Install().Image(); img != "" {
		t.Errorf("machine.install.image = %q on the 1.14 contract, want none", img)
	}

	if cfg := encoded(t, n); strings.Count(cfg, want) != 1 {
		t.Errorf("the encoded config names the installer %d times, want once", strings.Count(cfg, want))
	}
}

func TestRender_Contract114WithoutInstallDiskHasNoInstaller(t *testing.T) {
	files := testlab.Files(t)
	testlab.Unpin(t, files)
	testlab.SetVersions(t, files, "v1.14.1", "")
	testlab.Edit(t, files, "talops.yaml", "    schematic: base\n    installDisk: /dev/sda\n    patches: [nodes/k8s-node4.yaml]", "    schematic: base\n    patches: [nodes/k8s-node4.yaml]")

	n := node(t, renderLab(t, files), "k8s-node4")

	if n.Config.UnattendedInstallConfig() != nil || n.Config.Machine().Install().Image() != "" {
		t.Errorf("a 1.14 node without installDisk carries an installer")
	}
}

func TestFactoryInstaller_NodeWithoutSchematicGetsTheVanillaImageAndSecureBootItsFlavour(t *testing.T) {
	files := testlab.Files(t)
	testlab.Edit(t, files, "talops.yaml", "    schematic: base\n    installDisk: /dev/sda\n    patches: [nodes/k8s-node4.yaml]", "    installDisk: /dev/sda\n    secureBoot: true\n    patches: [nodes/k8s-node4.yaml]")

	c := testlab.Load(t, files)

	got, err := render.FactoryInstaller(labIDs(t))(c, c.Spec.Nodes[4])
	if err != nil {
		t.Fatal(err)
	}

	if want := "factory.talos.dev/nocloud-installer-secureboot/" + schematic.VanillaID + ":" + testlab.Talos; got != want {
		t.Errorf("installer = %s, want %s", got, want)
	}
}

// A 1.14 node whose patch selects the install disk (no installDisk) gets its installer in
// the UnattendedInstallConfig the patch writes, and the patch's selector stays.
func TestRender_Contract114APatchSelectingTheDiskGetsTheNodesInstaller(t *testing.T) {
	files := testlab.Files(t)
	testlab.Unpin(t, files)
	testlab.SetVersions(t, files, "v1.14.1", "")
	testlab.Edit(t, files, "talops.yaml", "    schematic: base\n    installDisk: /dev/sda\n    patches: [nodes/k8s-node4.yaml]", "    schematic: base\n    patches: [nodes/k8s-node4.yaml, nodes/k8s-node4-disk.yaml]")

	files["nodes/k8s-node4-disk.yaml"] = []byte("apiVersion: v1alpha1\nkind: UnattendedInstallConfig\nprovisioning:\n  diskSelector:\n    match: disk.transport == \"nvme\"\n")

	n := node(t, renderLab(t, files), "k8s-node4")

	u := n.Config.UnattendedInstallConfig()
	if u == nil {
		t.Fatal("no UnattendedInstallConfig")
	}

	if want := "factory.talos.dev/nocloud-installer/" + labIDs(t)["base"] + ":v1.14.1"; u.InstallerImage() != want {
		t.Errorf("installer.image = %q, want %q", u.InstallerImage(), want)
	}

	if got := u.VolumeSelector().String(); got != `disk.transport == "nvme"` {
		t.Errorf("the patch's disk selector became %q", got)
	}
}

// A bare-metal box beside the lab's nocloud VMs installs from the metal installer; the
// VMs keep the cluster's.
func TestRender_ANodeOnItsOwnPlatformInstallsItsPlatformsInstaller(t *testing.T) {
	files := testlab.Files(t)
	testlab.Edit(t, files, "talops.yaml", "    patches: [nodes/k8s-node4.yaml]\n", "    patches: [nodes/k8s-node4.yaml]\n    platform: metal\n")

	nodes := renderLab(t, files)
	ids := labIDs(t)

	for _, tc := range []struct{ node, want string }{
		{"k8s-node4", "factory.talos.dev/metal-installer/" + ids["base"] + ":" + testlab.Talos},
		{"k8s-node3", "factory.talos.dev/nocloud-installer/" + ids["base"] + ":" + testlab.Talos},
	} {
		n := node(t, nodes, tc.node)
		if n.Installer != tc.want || !strings.Contains(encoded(t, n), tc.want) {
			t.Errorf("%s: installer %s, want %s in its config", tc.node, n.Installer, tc.want)
		}
	}
}
