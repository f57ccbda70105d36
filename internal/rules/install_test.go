package rules_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/rules"
	"github.com/talops/talops/internal/testlab"
)

// seedStyleExtensions is how the lab this project was born from pinned its GPU
// extensions: in the machine config, with placeholder tags.
const seedStyleExtensions = `machine:
  install:
    extensions:
      - image: ghcr.io/siderolabs/nvidia-open-gpu-kernel-modules:550.x-v1.9.5
      - image: ghcr.io/siderolabs/nvidia-container-toolkit:550.x-v1.16.1
      - image: ghcr.io/siderolabs/qemu-guest-agent:9.1.2
      - image: registry.example.org/custom-ext:v1
`

func TestInstallExtensionsDeprecated_SeedLabStyleIsCaughtWithHowToMoveThem(t *testing.T) {
	files := testlab.Files(t)
	files["patches/seed-gpu.yaml"] = []byte(seedStyleExtensions)
	testlab.Edit(t, files, "talops.yaml", "patches: [nodes/k8s-node1.yaml]", "patches: [nodes/k8s-node1.yaml, patches/seed-gpu.yaml]")
	testlab.Edit(t, files, "talops.yaml", "    schematic: gpu\n", "    schematic: base\n")

	fs := checkCodes(t, files, false, rules.CodeInstallExtensionsDeprecated, rules.CodeConfigWarning)
	if len(fs) != 1 {
		t.Fatalf("want one finding (machinery's own deprecation warning folded into it), got %+v", fs)
	}

	f := fs[0]
	if f.Severity != finding.Warning || f.Code != rules.CodeInstallExtensionsDeprecated || f.Node != "k8s-node1" ||
		f.File != "examples/homelab/patches/seed-gpu.yaml" || f.Line != 3 || f.Path != "machine.install.extensions" {
		t.Errorf("finding = %+v", f)
	}

	for _, want := range []string{
		// The bare NVIDIA names are not published on 1.13: the advice names what is.
		"add siderolabs/nvidia-open-gpu-kernel-modules-lts, siderolabs/nvidia-container-toolkit-lts under customization.systemExtensions.officialExtensions of schematic base (examples/homelab/schematics/base.yaml)",
		"siderolabs/qemu-guest-agent already in schematic base",
		"registry.example.org/custom-ext:v1 not official: build it into a custom installer",
		"then remove machine.install.extensions",
	} {
		if !strings.Contains(f.Message, want) {
			t.Errorf("message lacks %q:\n%s", want, f.Message)
		}
	}

	if fs := checkCodes(t, files, true, rules.CodeInstallExtensionsDeprecated); len(fs) != 1 || fs[0].Severity != finding.Error {
		t.Errorf("--strict: %+v", fs)
	}
}

func TestInstallExtensionsDeprecated_NodeWithoutSchematicIsToldToNameOne(t *testing.T) {
	files := testlab.Files(t)
	testlab.Edit(t, files, "talops.yaml", "    schematic: base\n    installDisk: /dev/sda\n    patches: [nodes/k8s-node4.yaml]", "    installDisk: /dev/sda\n    patches: [nodes/k8s-node4.yaml]")
	files["nodes/k8s-node4.yaml"] = append([]byte("machine:\n  install:\n    extensions:\n      - image: ghcr.io/siderolabs/iscsi-tools:v0.2.0\n---\n"), files["nodes/k8s-node4.yaml"]...)

	fs := checkCodes(t, files, false, rules.CodeInstallExtensionsDeprecated)
	if len(fs) != 1 || fs[0].Node != "k8s-node4" {
		t.Fatalf("findings = %+v", fs)
	}

	if !strings.Contains(fs[0].Message, "add siderolabs/iscsi-tools under customization.systemExtensions.officialExtensions of a schematic file, list it under schematics: in talops.yaml and set schematic: on node k8s-node4") {
		t.Errorf("message = %s", fs[0].Message)
	}
}
