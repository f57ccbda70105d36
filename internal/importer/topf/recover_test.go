package topf_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/importer/topf"
	"github.com/talops/talops/internal/schematic"
)

// rawIDTopf has two workers on a schematic known only by its ID (vector: amd-ucode,
// gvisor and the NVIDIA production drivers).
const (
	rawIDSchematic = `customization:
  systemExtensions:
    officialExtensions:
      - siderolabs/amd-ucode
      - siderolabs/gvisor
      - siderolabs/nvidia-container-toolkit-production
      - siderolabs/nvidia-open-gpu-kernel-modules-production
`
	rawID     = "d5d1a460585c520280f57762c3f260b63b2fe6f24163104f6d517b02bb24f311"
	rawIDTopf = "clusterName: a\nclusterEndpoint: https://a:6443\nkubernetesVersion: 1.35.0\ntalosVersion: 1.13.3\n" +
		"schematicId: " + rawID + "\nnodes: [{host: a, role: worker}, {host: b, role: worker}]\n"
)

func importRawID(t *testing.T, fromFactory func(factory, id string) (*schematic.Schematic, error)) *topf.Result {
	t.Helper()

	res, err := topf.Import(topf.Input{
		File: "topf.yaml", Data: []byte(rawIDTopf), Secrets: "secrets.sops.yaml", Recover: fromFactory,
		ListFiles: func(string) ([]string, error) { return nil, nil },
		ReadFile:  func(string) ([]byte, error) { return nil, errors.New("no file") },
	})
	if err != nil {
		t.Fatal(err)
	}

	return res
}

func TestImport_RawSchematicIDGetsTheFactorysSchematic(t *testing.T) {
	var asked []string

	res := importRawID(t, func(factory, id string) (*schematic.Schematic, error) {
		asked = append(asked, factory+" "+id)

		return schematic.Load([]byte(rawIDSchematic))
	})

	if len(asked) == 0 || asked[0] != "https://factory.talos.dev "+rawID {
		t.Errorf("the factory was asked %q", asked)
	}

	files := cluster.MapFiles{"secrets.sops.yaml": []byte("{}\n")}
	for _, f := range res.Files {
		files[f.Path] = f.Data
	}

	c, err := cluster.Load("a", files)
	if err != nil {
		t.Fatalf("talops.yaml does not load: %v", err)
	}

	for _, n := range c.Spec.Nodes {
		if n.Schematic != "factory-d5d1a460585c" {
			t.Errorf("%s's schematic is %q, want factory-d5d1a460585c", n.Name, n.Schematic)
		}
	}

	data, _ := c.File(c.Spec.Schematics["factory-d5d1a460585c"].File)
	if s, err := schematic.Load(data); err != nil {
		t.Errorf("the recovered schematic does not load: %v", err)
	} else if id, _ := s.ID(); id != rawID {
		t.Errorf("the recovered schematic's ID is %s, want %s", id, rawID)
	}

	if i := slices.IndexFunc(res.Findings, func(f finding.Finding) bool { return f.Code == topf.CodeUnsupported }); i >= 0 {
		t.Errorf("a recovered schematic is still reported: %+v", res.Findings[i])
	}
}

func TestImport_RawSchematicIDOfflineBecomesAnOpaqueSchematicAndSaysSo(t *testing.T) {
	res := importRawID(t, nil)

	i := slices.IndexFunc(res.Findings, func(f finding.Finding) bool { return f.Path == "schematicId" })
	if i < 0 || res.Findings[i].Code != topf.CodeMapped || !strings.Contains(res.Findings[i].Message, "--offline") ||
		!strings.Contains(res.Findings[i].Message, "schematics/factory-d5d1a460585c.yaml holds only the ID (an opaque schematic)") {
		t.Fatalf("want schematicId reported as kept opaque, not asked for offline, got %+v", res.Findings)
	}

	files := cluster.MapFiles{"secrets.sops.yaml": []byte("{}\n")}
	for _, f := range res.Files {
		files[f.Path] = f.Data
	}

	c, err := cluster.Load("a", files)
	if err != nil {
		t.Fatalf("talops.yaml does not load: %v", err)
	}

	for _, n := range c.Spec.Nodes {
		if n.Schematic != "factory-d5d1a460585c" {
			t.Errorf("%s's schematic is %q, want factory-d5d1a460585c", n.Name, n.Schematic)
		}
	}

	data, _ := c.File(c.Spec.Schematics["factory-d5d1a460585c"].File)
	if id, ok := schematic.Opaque(data); !ok || id != rawID {
		t.Errorf("schematic factory-d5d1a460585c is not the opaque schematic of %s:\n%s", rawID, data)
	}
}
