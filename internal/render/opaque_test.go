package render_test

import (
	"errors"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/testlab"
)

const opaqueID = "44186a005dfca322f81df634a457384455475fbfa518777f3ee58d35f173d73b"

func TestRender_OpaqueSchematicsNodeGetsTheInstallerOfThatID(t *testing.T) {
	files := testlab.Files(t)
	files["schematics/gpu.yaml"] = []byte("# content unknown\nid: " + opaqueID + "\n")

	n := node(t, renderLab(t, files), "k8s-node1")

	if want := "factory.talos.dev/nocloud-installer/" + opaqueID + ":" + testlab.Talos; n.Installer != want {
		t.Errorf("installer %q, want %q", n.Installer, want)
	}

	if !render.OpaqueSchematic(testlab.Load(t, files), "gpu") {
		t.Error("schematic gpu is not reported opaque")
	}
}

func TestSchematicIDs_IDWithOtherKeysIsAnErrorAtTheFileAndLine(t *testing.T) {
	files := testlab.Files(t)
	files["schematics/gpu.yaml"] = []byte("id: " + opaqueID + "\ncustomization: {}\n")

	_, err := render.SchematicIDs(testlab.Load(t, files))

	var ie *cluster.InputError
	if !errors.As(err, &ie) || ie.Line != 2 || ie.File != "examples/homelab/schematics/gpu.yaml" {
		t.Fatalf("SchematicIDs = %v; want an input error at schematics/gpu.yaml:2", err)
	}

	if want := `examples/homelab/schematics/gpu.yaml:2: customization: "customization" beside id: a schematic file that holds an ID holds nothing else (keep only id, or remove id and write the schematic)`; err.Error() != want {
		t.Errorf("error\n %s\nwant\n %s", err, want)
	}
}
