package render_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/schematic"
	"github.com/talops/talops/internal/testlab"
)

// The lab's talops.yaml lines the installer setting is written beside.
const (
	labPlatformLine = "platform: nocloud\n"
	labGPULine      = "  gpu: schematics/gpu.yaml\n"
	labNode4Line    = "    schematic: base\n    installDisk: /dev/sda\n    patches: [nodes/k8s-node4.yaml]"
)

// talops.yaml's installer names the repository a node's installer is pulled from, as the
// node was installed; the node's secureBoot and the cluster's talosVersion still make the
// rest of the name, so a Renovate bump of talosVersion moves it as it moves the default.
func TestFactoryInstaller_TheInstallerSettingKeepsTheRepositoryAndFollowsTalosVersion(t *testing.T) {
	ids := labIDs(t)

	for _, tc := range []struct {
		name  string
		edit  func(t *testing.T, files cluster.MapFiles)
		talos string
		node  int
		want  string
	}{
		{
			name: "no setting: the platform's installer",
			node: 0, want: "factory.talos.dev/nocloud-installer/" + ids["base"] + ":" + testlab.Talos,
		},
		{
			name: "the cluster's installer: the factory's platform-less name, up to 1.13",
			edit: clusterInstaller("installer"), talos: "v1.13.9",
			node: 0, want: "factory.talos.dev/installer/" + ids["base"] + ":v1.13.9",
		},
		{
			name: "the cluster's installer after a talosVersion bump",
			edit: clusterInstaller("installer"), talos: "v1.13.13",
			node: 0, want: "factory.talos.dev/installer/" + ids["base"] + ":v1.13.13",
		},
		{
			// The factory serves the platform-less name up to 1.13: the upgrade to 1.14
			// changes the image anyway, and names the metal installer it was.
			name: "the cluster's platform-less installer from 1.14: the metal installer",
			edit: clusterInstaller("installer"), talos: "v1.14.9",
			node: 0, want: "factory.talos.dev/metal-installer/" + ids["base"] + ":v1.14.9",
		},
		{
			name: "the cluster's installer on a secure boot node gets the suffix",
			edit: func(t *testing.T, files cluster.MapFiles) {
				clusterInstaller("installer")(t, files)
				testlab.Edit(t, files, "talops.yaml", labNode4Line, labNode4Line+"\n    secureBoot: true")
			},
			talos: "v1.13.9",
			node:  4, want: "factory.talos.dev/installer-secureboot/" + ids["base"] + ":v1.13.9",
		},
		{
			name: "the cluster's installer names another platform's repository",
			edit: clusterInstaller("metal-installer"),
			node: 0, want: "factory.talos.dev/metal-installer/" + ids["base"] + ":" + testlab.Talos,
		},
		{
			name: "a node without a schematic takes the cluster's installer",
			edit: func(t *testing.T, files cluster.MapFiles) {
				clusterInstaller("installer")(t, files)
				testlab.Edit(t, files, "talops.yaml", labNode4Line, "    installDisk: /dev/sda\n    patches: [nodes/k8s-node4.yaml]")
			},
			talos: "v1.13.9",
			node:  4, want: "factory.talos.dev/installer/" + schematic.VanillaID + ":v1.13.9",
		},
		{
			name: "a schematic's installer names its nodes' repository",
			edit: gpuInstaller("installer"), talos: "v1.13.9",
			node: 1, want: "factory.talos.dev/installer/" + ids["gpu"] + ":v1.13.9",
		},
		{
			name: "a schematic's installer after a talosVersion bump",
			edit: gpuInstaller("nocloud-installer"), talos: "v1.14.9",
			node: 1, want: "factory.talos.dev/nocloud-installer/" + ids["gpu"] + ":v1.14.9",
		},
		{
			name: "a schematic's installer leaves the other schematics' nodes alone",
			edit: gpuInstaller("installer"),
			node: 0, want: "factory.talos.dev/nocloud-installer/" + ids["base"] + ":" + testlab.Talos,
		},
		{
			name: "a schematic's installer wins over the cluster's",
			edit: func(t *testing.T, files cluster.MapFiles) {
				clusterInstaller("metal-installer")(t, files)
				gpuInstaller("installer")(t, files)
			},
			talos: "v1.13.9",
			node:  1, want: "factory.talos.dev/installer/" + ids["gpu"] + ":v1.13.9",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := testlab.Files(t)
			if tc.edit != nil {
				tc.edit(t, files)
			}

			if tc.talos != "" {
				testlab.SetVersions(t, files, tc.talos, "")
			}

			c := testlab.Load(t, files)

			got, err := render.FactoryInstaller(ids)(c, c.Spec.Nodes[tc.node])
			if err != nil {
				t.Fatal(err)
			}

			if got != tc.want {
				t.Errorf("%s: installer %s, want %s", c.Spec.Nodes[tc.node].Name, got, tc.want)
			}
		})
	}
}

// Both contracts write the named installer: 1.13's machine.install.image, 1.14's
// UnattendedInstallConfig.
func TestRender_TheInstallerSettingReachesBothContracts(t *testing.T) {
	for _, tc := range []struct {
		name       string
		unpin      bool
		unattended bool
	}{
		{name: "1.13 contract: machine.install.image"},
		{name: "1.14 contract: UnattendedInstallConfig", unpin: true, unattended: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := testlab.Files(t)
			if tc.unpin {
				testlab.Unpin(t, files)
			}

			clusterInstaller("metal-installer")(t, files)

			n := node(t, renderLab(t, files), "k8s-master")
			want := "factory.talos.dev/metal-installer/" + labIDs(t)["base"] + ":" + testlab.Talos

			got := n.Config.Machine().Install().Image()
			if tc.unattended {
				if u := n.Config.UnattendedInstallConfig(); u != nil {
					got = u.InstallerImage()
				}
			}

			if got != want || strings.Count(encoded(t, n), want) != 1 {
				t.Errorf("installer %q (%d times in the config), want %s once", got, strings.Count(encoded(t, n), want), want)
			}
		})
	}
}

func clusterInstaller(name string) func(t *testing.T, files cluster.MapFiles) {
	return func(t *testing.T, files cluster.MapFiles) {
		t.Helper()
		testlab.Edit(t, files, "talops.yaml", labPlatformLine, labPlatformLine+"installer: "+name+"\n")
	}
}

func gpuInstaller(name string) func(t *testing.T, files cluster.MapFiles) {
	return func(t *testing.T, files cluster.MapFiles) {
		t.Helper()
		testlab.Edit(t, files, "talops.yaml", labGPULine, "  gpu: {file: schematics/gpu.yaml, installer: "+name+"}\n")
	}
}
