package cli_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/testlab"
)

const opaqueID = "44186a005dfca322f81df634a457384455475fbfa518777f3ee58d35f173d73b"

// labWithOpaqueGPU is the lab whose gpu schematic file holds only an ID.
func labWithOpaqueGPU(t *testing.T) map[string][]byte {
	t.Helper()

	files := testlab.Files(t)
	files["schematics/gpu.yaml"] = []byte("# content unknown\nid: " + opaqueID + "\n")

	return files
}

func TestSchematics_RegisterLeavesAnOpaqueSchematicOutAndSaysSo(t *testing.T) {
	t.Parallel()

	files := labWithOpaqueGPU(t)

	h := newHarness(t, files, nil)
	fake := fakeFactory(t, h, "https://factory.talos.dev")
	fake.ExpectRegister(labSchematic(t, files, "base"))

	if err := h.run("schematics", "--dir", "examples/homelab", "--register"); err != nil {
		t.Fatalf("schematics --register: %v\n%s", err, h.stderr.String())
	}

	out := h.stdout.String()
	for _, want := range []string{
		"schematic gpu " + opaqueID + "\n  file        examples/homelab/schematics/gpu.yaml\n  extensions  unknown (opaque: the file holds only the ID; import online or GET /schematics/{id} for the content)\n",
		"  installer   factory.talos.dev/nocloud-installer/" + opaqueID + ":" + testlab.Talos + "\n",
		"(every schematic registered, IDs confirmed, but opaque gpu: not posted, the factory already has its ID)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
}

func TestSchematicID_OpaqueFilePrintsTheIDItHolds(t *testing.T) {
	t.Parallel()

	files := labWithOpaqueGPU(t)

	h := newHarness(t, files, nil)
	readLabFiles(h, files)

	if err := h.run("schematic", "id", "examples/homelab/schematics/gpu.yaml"); err != nil {
		t.Fatal(err)
	}

	if got := h.stdout.String(); got != opaqueID+"\n" {
		t.Errorf("stdout = %q, want the opaque ID", got)
	}
}

func TestSchematics_JSONMarksAnOpaqueSchematic(t *testing.T) {
	t.Parallel()

	h := newHarness(t, labWithOpaqueGPU(t), nil)

	if err := h.run("schematics", "--dir", "examples/homelab", "--format", "json"); err != nil {
		t.Fatal(err)
	}

	for _, sc := range schematicsJSON(t, h).Schematics {
		if want := sc.Name == "gpu"; sc.Opaque != want || (want && (sc.ID != opaqueID || sc.Extensions == nil)) {
			t.Errorf("schematic %+v: opaque %v, want %v with ID %s and no extensions", sc, sc.Opaque, want, opaqueID)
		}
	}
}
