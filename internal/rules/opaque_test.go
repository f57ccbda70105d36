package rules_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/rules"
)

const opaqueID = "44186a005dfca322f81df634a457384455475fbfa518777f3ee58d35f173d73b"

// A GPU node's modules would be nvidia.modules-without-driver on a schematic without the
// extensions; on an opaque one talops cannot know, and says so once, at the file.
func TestValidate_OpaqueSchematicIsOneInfoFindingAtTheFileAndNoError(t *testing.T) {
	files := gpuRepo{
		talos:     currentRelease,
		schematic: "# the import could not ask the Image Factory\nid: " + opaqueID + "\n",
		patches:   []string{modulesPatch},
		plain:     true,
	}.files(t)

	var (
		opaque       []finding.Finding
		plainChecked bool
	)

	for _, f := range checkInput(t, input(t, files)) {
		switch {
		case f.Code == rules.CodeSchematicOpaque:
			opaque = append(opaque, f)
		case f.Code == rules.CodeNvidiaModulesWithoutDriver && f.Node == "plain-1":
			plainChecked = true // the vanilla node beside it is still checked
		case f.Severity != finding.Info && f.Code != rules.CodeNoControlPlane:
			t.Errorf("unexpected finding: %+v", f)
		}
	}

	if !plainChecked {
		t.Error("the vanilla node loading NVIDIA modules was not reported: the check did not run")
	}

	if len(opaque) != 1 {
		t.Fatalf("schematic.opaque findings = %+v, want one", opaque)
	}

	want := finding.Finding{
		Severity: finding.Info, Code: rules.CodeSchematicOpaque, File: "repo/schematics/gpu.yaml", Line: 2, Path: "id",
		Message: "schematic gpu is opaque: the file holds only the ID " + opaqueID + ", so talops names its installer but does not know its extensions, and the extension and NVIDIA checks skip what it carries (node gpu-1); to fill it in, run the import online, or ask the factory (GET https://factory.talos.dev/schematics/" + opaqueID + ") and replace the file with the schematic it gives",
	}
	if opaque[0] != want {
		t.Errorf("finding\n %+v\nwant\n %+v", opaque[0], want)
	}
}

// What an opaque schematic already carries is unknown: the advice to move an install
// extension into it says to fill the file in first.
func TestInstallExtensionsAdvice_OpaqueSchematicIsFilledInFirst(t *testing.T) {
	files := gpuRepo{
		talos:     currentRelease,
		schematic: "id: " + opaqueID + "\n",
		patches:   []string{installExtensions("ghcr.io/siderolabs/iscsi-tools:v0.2.0")},
	}.files(t)

	for _, f := range checkInput(t, input(t, files)) {
		if f.Code != rules.CodeInstallExtensionsDeprecated {
			continue
		}

		if want := "add siderolabs/iscsi-tools under customization.systemExtensions.officialExtensions of schematic gpu (repo/schematics/gpu.yaml) once the file holds the schematic, not only its ID (schematic.opaque)"; !strings.Contains(f.Message, want) {
			t.Errorf("advice lacks %q:\n%s", want, f.Message)
		}

		return
	}

	t.Fatal("no install.extensions-deprecated finding")
}
