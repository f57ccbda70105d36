package rules_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/rules"
	"github.com/talops/talops/internal/schematic"
	"github.com/talops/talops/internal/secrets"
	"github.com/talops/talops/internal/testlab"
)

// checkCodes runs every rule the way validate does (schematic IDs included) and keeps
// the findings with the given codes.
func checkCodes(t *testing.T, files cluster.MapFiles, strict bool, keep ...string) []finding.Finding {
	t.Helper()

	c := testlab.Load(t, files)

	b, err := (&secrets.Loader{Getenv: testlab.NoEnv, Now: time.Now}).Load(c)
	if err != nil {
		t.Fatal(err)
	}

	ids, err := render.SchematicIDs(c)
	if err != nil {
		t.Fatal(err)
	}

	nodes := render.All(context.Background(), c, b, render.Options{Installer: render.FactoryInstaller(ids)})

	var out []finding.Finding

	for _, f := range checkInput(t, &rules.Input{Cluster: c, Nodes: nodes, Bundle: b, Strict: strict, Schematics: ids}) {
		if slices.Contains(keep, f.Code) {
			out = append(out, f)
		}
	}

	return out
}

// labSchematicIDs are the IDs of the reference lab's schematics.
func labSchematicIDs(t *testing.T) map[string]string {
	t.Helper()

	ids, err := render.SchematicIDs(testlab.Load(t, testlab.Files(t)))
	if err != nil {
		t.Fatal(err)
	}

	return ids
}

// patchGPUWorkerInstaller makes the GPU worker's own patch set machine.install.image
// on line 6 of nodes/k8s-node1.yaml.
func patchGPUWorkerInstaller(t *testing.T, files cluster.MapFiles, image string) {
	t.Helper()

	testlab.Edit(t, files, "nodes/k8s-node1.yaml", "machine:\n  kernel:", "machine:\n  install:\n    image: "+image+"\n  kernel:")
}

var installerCodes = []string{rules.CodeInstallerMismatch, rules.CodeInstallerGHCRRemoved}

func TestInstallerMismatch_WrongInstallerOnTheGPUWorkerPointsAtThePatchLine(t *testing.T) {
	ids := labSchematicIDs(t)
	factory := "factory.talos.dev/nocloud-installer/"
	lostGPU := "would lose siderolabs/nvidia-container-toolkit-lts, siderolabs/nvidia-open-gpu-kernel-modules-lts on its next upgrade"

	for _, tc := range []struct {
		name, image string
		want        []string // parts of the message
	}{
		{
			name:  "the base schematic's installer",
			image: factory + ids["base"] + ":v1.13.9",
			want:  []string{"is the installer of schematic base (not gpu);", "needs " + factory + ids["gpu"] + ":v1.13.9 (schematic gpu, Talos v1.13.9)", lostGPU},
		},
		{
			name:  "the right schematic for an older Talos",
			image: factory + ids["gpu"] + ":v1.13.8",
			want:  []string{"is for Talos v1.13.8 (not v1.13.9);"},
		},
		{
			name:  "the vanilla image",
			image: factory + schematic.VanillaID + ":v1.13.9",
			want:  []string{"is the vanilla installer (no schematic);", "would lose siderolabs/nfs-utils, siderolabs/nvidia-container-toolkit-lts"},
		},
		{
			name:  "the stock installer while Talos still publishes it",
			image: "ghcr.io/siderolabs/installer:v1.13.9",
			want:  []string{"is the stock installer from ghcr.io (no system extensions);", "would lose siderolabs/nfs-utils"},
		},
		{
			name:  "a schematic the repository does not have",
			image: factory + strings.Repeat("ab", 32) + ":v1.13.9",
			want:  []string{"is the installer of schematic ID " + strings.Repeat("ab", 32) + " (none of this repository's schematics);"},
		},
		{
			name:  "the SecureBoot flavour on a node without secureBoot",
			image: "factory.talos.dev/nocloud-installer-secureboot/" + ids["gpu"] + ":v1.13.9",
			want:  []string{"is repository nocloud-installer-secureboot (not nocloud-installer: platform nocloud);"},
		},
		{
			name:  "another factory",
			image: "factory.example.org/nocloud-installer/" + ids["gpu"] + ":v1.13.9",
			want:  []string{"is not an installer of the Image Factory at factory.talos.dev;"},
		},
		{
			name:  "the right factory without a schematic ID",
			image: factory + "gpu:v1.13.9",
			want:  []string{"is not a schematic's installer (the factory serves factory.talos.dev/nocloud-installer/<64 hex digits of a schematic ID>);"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := testlab.On113(t)
			patchGPUWorkerInstaller(t, files, tc.image)

			fs := checkCodes(t, files, false, installerCodes...)
			if len(fs) != 1 {
				t.Fatalf("want one installer.mismatch, got %+v", fs)
			}

			f := fs[0]
			if f.Severity != finding.Error || f.Code != rules.CodeInstallerMismatch || f.Node != "k8s-node1" ||
				f.File != "examples/homelab/nodes/k8s-node1.yaml" || f.Line != 6 || f.Path != "machine.install.image" {
				t.Errorf("finding = %+v", f)
			}

			if !strings.HasPrefix(f.Message, tc.image+" is ") {
				t.Errorf("message does not start with the image in use: %s", f.Message)
			}

			for _, w := range tc.want {
				if !strings.Contains(f.Message, w) {
					t.Errorf("message lacks %q:\n%s", w, f.Message)
				}
			}
		})
	}
}

func TestInstallerMismatch_SameImageUnderAnotherSpellingIsAccepted(t *testing.T) {
	ids := labSchematicIDs(t)

	for _, tc := range []struct {
		name  string
		edit  func(t *testing.T, files cluster.MapFiles)
		image string
	}{
		{
			name:  "the node's own installer pinned by digest",
			image: "factory.talos.dev/nocloud-installer/" + ids["gpu"] + ":v1.13.9@sha256:" + strings.Repeat("0", 64),
		},
		{
			name: "the stock installer on a node without schematic, before 1.14",
			edit: func(t *testing.T, files cluster.MapFiles) {
				testlab.Edit(t, files, "talops.yaml", "    schematic: gpu\n", "")
			},
			image: "ghcr.io/siderolabs/installer:v1.13.9",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := testlab.On113(t)
			if tc.edit != nil {
				tc.edit(t, files)
			}

			patchGPUWorkerInstaller(t, files, tc.image)

			if fs := checkCodes(t, files, false, installerCodes...); len(fs) != 0 {
				t.Errorf("findings = %+v", fs)
			}
		})
	}
}

// The Image Factory serves the metal installers under their names from before the
// platform-prefixed ones too: talhelper repositories name them in talosImageURL.
func TestInstallerMismatch_MetalAcceptsTheFactoryLegacyNamesOfTheSameImage(t *testing.T) {
	ids := labSchematicIDs(t)
	gpu := ids["gpu"] + ":v1.13.9"

	for _, tc := range []struct {
		name, platform, image string
		// nodePlatform is the GPU worker's own platform ("": the cluster's).
		nodePlatform         string
		secureBoot, accepted bool
	}{
		{name: "installer is metal-installer on metal", platform: "metal", image: "factory.talos.dev/installer/" + gpu, accepted: true},
		{name: "installer-secureboot is metal-installer-secureboot on metal", platform: "metal", secureBoot: true, image: "factory.talos.dev/installer-secureboot/" + gpu, accepted: true},
		{name: "the platform-prefixed name on metal stays accepted", platform: "metal", image: "factory.talos.dev/metal-installer/" + gpu, accepted: true},
		{name: "installer is not the nocloud installer", platform: "nocloud", image: "factory.talos.dev/installer/" + gpu},
		{name: "installer-secureboot is not the nocloud one", platform: "nocloud", secureBoot: true, image: "factory.talos.dev/installer-secureboot/" + gpu},
		{name: "another schematic ID under the legacy name", platform: "metal", image: "factory.talos.dev/installer/" + ids["base"] + ":v1.13.9"},
		{name: "another Talos version under the legacy name", platform: "metal", image: "factory.talos.dev/installer/" + ids["gpu"] + ":v1.13.8"},
		{name: "another factory under the legacy name", platform: "metal", image: "factory.example.org/installer/" + gpu},
		{name: "the SecureBoot legacy name on a node without secure boot", platform: "metal", image: "factory.talos.dev/installer-secureboot/" + gpu},
		{name: "the plain legacy name on a secure boot node", platform: "metal", secureBoot: true, image: "factory.talos.dev/installer/" + gpu},
		{name: "installer is metal-installer on a metal node of a nocloud cluster", platform: "nocloud", nodePlatform: "metal", image: "factory.talos.dev/installer/" + gpu, accepted: true},
		{name: "installer is not the installer of a nocloud node on a metal cluster", platform: "metal", nodePlatform: "nocloud", image: "factory.talos.dev/installer/" + gpu},
		{name: "the nocloud installer on a nocloud node of a metal cluster", platform: "metal", nodePlatform: "nocloud", image: "factory.talos.dev/nocloud-installer/" + gpu, accepted: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := testlab.On113(t)
			testlab.Edit(t, files, "talops.yaml", "platform: nocloud\n", "platform: "+tc.platform+"\n")

			if tc.secureBoot {
				testlab.Edit(t, files, "talops.yaml", "    schematic: gpu\n", "    schematic: gpu\n    secureBoot: true\n")
			}

			if tc.nodePlatform != "" {
				testlab.Edit(t, files, "talops.yaml", "    schematic: gpu\n", "    schematic: gpu\n    platform: "+tc.nodePlatform+"\n")
			}

			patchGPUWorkerInstaller(t, files, tc.image)

			fs := checkCodes(t, files, false, installerCodes...)

			switch {
			case tc.accepted && len(fs) != 0:
				t.Errorf("want %s accepted, got %+v", tc.image, fs)
			case !tc.accepted && (len(fs) != 1 || fs[0].Code != rules.CodeInstallerMismatch || fs[0].Node != "k8s-node1"):
				t.Errorf("want one installer.mismatch on k8s-node1 for %s, got %+v", tc.image, fs)
			}
		})
	}
}

func TestInstallerMismatch_OnePatchForEveryNodeGivesOneFindingPerNodeAtItsLine(t *testing.T) {
	ids := labSchematicIDs(t)

	files := testlab.On113(t)
	testlab.Edit(t, files, "patches/common.yaml", "machine:\n  time:", "machine:\n  install:\n    image: factory.talos.dev/nocloud-installer/"+ids["base"]+":v1.13.9\n  time:")

	fs := checkCodes(t, files, false, installerCodes...)
	if len(fs) != 1 || fs[0].Node != "k8s-node1" {
		t.Fatalf("want only the GPU worker caught (the others run base), got %+v", fs)
	}

	if fs[0].File != "examples/homelab/patches/common.yaml" || fs[0].Line != 4 {
		t.Errorf("placed at %s:%d, want patches/common.yaml:4", fs[0].File, fs[0].Line)
	}
}

// talos114 moves the lab to Talos 1.14, whose configs carry the installer in an
// UnattendedInstallConfig document.
func talos114(t *testing.T) cluster.MapFiles {
	t.Helper()

	return testlab.At(t, "v1.14.1", "v1.36.4")
}

// patchUnattendedInstaller adds an UnattendedInstallConfig document to the GPU worker's
// patch; its installer image is on line 23.
func patchUnattendedInstaller(t *testing.T, files cluster.MapFiles, image string) {
	t.Helper()

	files["nodes/k8s-node1.yaml"] = append(files["nodes/k8s-node1.yaml"],
		[]byte("---\napiVersion: v1alpha1\nkind: UnattendedInstallConfig\ninstaller:\n  image: "+image+"\n")...)
}

func TestInstallerMismatch_Contract114ChecksTheUnattendedInstallConfigDocument(t *testing.T) {
	ids := labSchematicIDs(t)

	files := talos114(t)
	if fs := checkCodes(t, files, false, installerCodes...); len(fs) != 0 {
		t.Fatalf("the lab on 1.14 has installer findings: %+v", fs)
	}

	patchUnattendedInstaller(t, files, "factory.talos.dev/nocloud-installer/"+ids["base"]+":v1.14.1")

	fs := checkCodes(t, files, false, installerCodes...)
	if len(fs) != 1 {
		t.Fatalf("want one finding, got %+v", fs)
	}

	f := fs[0]
	if f.Code != rules.CodeInstallerMismatch || f.Path != "UnattendedInstallConfig.installer.image" ||
		f.File != "examples/homelab/nodes/k8s-node1.yaml" || f.Line != lineOf(t, files["nodes/k8s-node1.yaml"], "  image: ") {
		t.Errorf("finding = %+v", f)
	}

	if !strings.Contains(f.Message, "the installer of schematic base (not gpu)") {
		t.Errorf("message = %s", f.Message)
	}
}

func TestInstallerGHCRRemoved_StockInstallerFromTalos114(t *testing.T) {
	ids := labSchematicIDs(t)
	want := "factory.talos.dev/nocloud-installer/" + ids["gpu"] + ":v1.14.1"

	t.Run("in the UnattendedInstallConfig of a 1.14 cluster", func(t *testing.T) {
		files := talos114(t)
		patchUnattendedInstaller(t, files, "ghcr.io/siderolabs/installer:v1.14.1")

		fs := checkCodes(t, files, false, installerCodes...)
		if len(fs) != 1 || fs[0].Code != rules.CodeInstallerGHCRRemoved || fs[0].Severity != finding.Error {
			t.Fatalf("want only installer.ghcr-removed, got %+v", fs)
		}

		if !strings.Contains(fs[0].Message, "the installer comes from the Image Factory: "+want+" (schematic gpu)") {
			t.Errorf("message does not name the installer to use: %s", fs[0].Message)
		}

		if fs[0].Line != lineOf(t, files["nodes/k8s-node1.yaml"], "  image: ") {
			t.Errorf("line %d", fs[0].Line)
		}
	})

	t.Run("a 1.14 tag on a 1.13 cluster", func(t *testing.T) {
		files := testlab.On113(t)
		patchGPUWorkerInstaller(t, files, "ghcr.io/siderolabs/installer:v1.14.0")

		fs := checkCodes(t, files, false, installerCodes...)
		if len(fs) != 1 || fs[0].Code != rules.CodeInstallerGHCRRemoved || fs[0].Line != 6 {
			t.Fatalf("want one installer.ghcr-removed on line 6, got %+v", fs)
		}
	})

	t.Run("not before 1.14", func(t *testing.T) {
		files := testlab.On113(t)
		testlab.Edit(t, files, "talops.yaml", "    schematic: gpu\n", "")
		patchGPUWorkerInstaller(t, files, "ghcr.io/siderolabs/installer:v1.13.9")

		if fs := checkCodes(t, files, false, installerCodes...); len(fs) != 0 {
			t.Fatalf("findings = %+v", fs)
		}
	})
}

func lineOf(t *testing.T, data []byte, prefix string) int {
	t.Helper()

	for i, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, prefix) {
			return i + 1
		}
	}

	t.Fatalf("no line starts with %q", prefix)

	return 0
}

// completeConfigNode turns k8s-node2 into a node whose config is a complete file (rendered
// from the lab) with its machine.install.image replaced by image.
func completeConfigNode(t *testing.T, files cluster.MapFiles, image string) {
	t.Helper()

	c := testlab.Load(t, files)

	b, err := (&secrets.Loader{Getenv: testlab.NoEnv, Now: time.Now}).Load(c)
	if err != nil {
		t.Fatal(err)
	}

	ids, err := render.SchematicIDs(c)
	if err != nil {
		t.Fatal(err)
	}

	n, err := render.One(c, b, c.Spec.Nodes[2], render.Options{Installer: render.FactoryInstaller(ids)})
	if err != nil {
		t.Fatal(err)
	}

	data, err := n.Bytes()
	if err != nil {
		t.Fatal(err)
	}

	files["rendered/k8s-node2.yaml"] = []byte(strings.Replace(string(data), n.Installer, image, 1))
	testlab.Edit(t, files, "talops.yaml", "    installDisk: /dev/sda\n    patches: [nodes/k8s-node2.yaml]", "    config: rendered/k8s-node2.yaml")
}

func TestInstallerMismatch_CompleteConfigIsHeldToTheSchematicItsNodeNames(t *testing.T) {
	ids := labSchematicIDs(t)
	gpuInstaller := "factory.talos.dev/nocloud-installer/" + ids["gpu"] + ":v1.13.9"

	files := testlab.On113(t)
	completeConfigNode(t, files, gpuInstaller)

	fs := checkCodes(t, files, false, installerCodes...)
	if len(fs) != 1 || fs[0].Node != "k8s-node2" || fs[0].File != "examples/homelab/rendered/k8s-node2.yaml" ||
		fs[0].Line != lineOf(t, files["rendered/k8s-node2.yaml"], "        image: "+gpuInstaller) {
		t.Fatalf("findings = %+v", fs)
	}

	if !strings.Contains(fs[0].Message, "the installer of schematic gpu (not base)") {
		t.Errorf("message = %s", fs[0].Message)
	}

	// Without a schematic in talops.yaml, talops claims nothing about the file's image.
	testlab.Edit(t, files, "talops.yaml", "    schematic: base\n    config: rendered/k8s-node2.yaml", "    config: rendered/k8s-node2.yaml")

	if fs := checkCodes(t, files, false, installerCodes...); len(fs) != 0 {
		t.Errorf("findings = %+v", fs)
	}
}

func TestInstallerMismatch_SetByAnRFC6902PatchPointsAtTheOperation(t *testing.T) {
	files := testlab.On113(t)
	files["patches/worker.yaml"] = []byte("- op: add\n  path: /machine/sysctls/a\n  value: \"1\"\n- op: replace\n  path: /machine/install/image\n  value: ghcr.io/siderolabs/installer:v1.13.9\n")

	fs := checkCodes(t, files, false, rules.CodeInstallerMismatch)
	if len(fs) != 4 {
		t.Fatalf("want one installer.mismatch per worker, got %+v", fs)
	}

	for _, f := range fs {
		if f.File != "examples/homelab/patches/worker.yaml" || f.Line != 6 || f.Path != "machine.install.image" {
			t.Errorf("finding placed at %s:%d %s, want the operation's value in the worker patch", f.File, f.Line, f.Path)
		}
	}
}

func TestInstallerMismatch_ConfigWithoutAnyInstaller(t *testing.T) {
	for _, tc := range []struct {
		name, file, old, new, want string
	}{
		{
			name: "a patch removes the installer", file: "nodes/k8s-node1.yaml",
			old: "machine:\n  kernel:", new: "machine:\n  install:\n    image:\n      $patch: delete\n  kernel:",
			want: "a patch removed machine.install.image",
		},
		{
			name: "the 1.14 contract without installDisk", file: "talops.yaml",
			old: "    schematic: gpu\n    installDisk: /dev/sda\n", new: "    schematic: gpu\n",
			want: "the node has no installDisk",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := testlab.On113(t)
			testlab.Unpin(t, files)
			testlab.Edit(t, files, tc.file, tc.old, tc.new)

			if tc.file == "talops.yaml" {
				testlab.SetVersions(t, files, "v1.14.1", "")
			}

			var got []finding.Finding
			for _, f := range checkInput(t, input(t, files)) {
				if f.Code == rules.CodeInstallerMismatch && f.Node == "k8s-node1" {
					got = append(got, f)
				}
			}

			if len(got) != 1 || !strings.Contains(got[0].Message, tc.want) || got[0].Line == 0 {
				t.Fatalf("findings = %+v", got)
			}
		})
	}
}
