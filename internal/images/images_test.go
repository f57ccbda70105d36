package images_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/talops/talops/internal/images"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/testlab"
)

func TestBootISOs_OnePerProxmoxNodeAndSchematicSharedByItsNodes(t *testing.T) {
	t.Parallel()

	c := testlab.Load(t, testlab.Files(t))

	ids, err := render.SchematicIDs(c)
	if err != nil {
		t.Fatal(err)
	}

	isos, err := images.BootISOs(c)
	if err != nil {
		t.Fatal(err)
	}

	seen := map[string]bool{}
	nodes := 0

	for _, iso := range isos {
		if iso.ProxmoxNode != "pve" || iso.File != images.ISOName(c.Spec.TalosVersion, iso.ID, "nocloud-amd64.iso") {
			t.Errorf("iso %+v", iso)
		}

		if !slices.Contains([]string{ids["base"], ids["gpu"]}, iso.ID) || seen[iso.ID] {
			t.Errorf("iso %s: not one per schematic (%v)", iso.ID, ids)
		}

		seen[iso.ID] = true
		nodes += len(iso.Nodes)
	}

	if nodes != len(c.Spec.Nodes) {
		t.Errorf("%d nodes boot from the ISOs, the lab has %d", nodes, len(c.Spec.Nodes))
	}
}

func TestOf_EveryNodeHasAnInstallerAndItsSchematicsID(t *testing.T) {
	t.Parallel()

	c := testlab.Load(t, testlab.Files(t))

	ids, err := render.SchematicIDs(c)
	if err != nil {
		t.Fatal(err)
	}

	s, err := images.Of(c, ids)
	if err != nil {
		t.Fatal(err)
	}

	if !maps.Equal(s.IDs(), ids) || len(s.Nodes) != len(c.Spec.Nodes) || s.Arch != images.BootArch {
		t.Fatalf("schematics %+v", s)
	}

	for _, n := range s.Nodes {
		if n.Installer == "" || n.ID != ids[n.Schematic] || n.ISO == "" {
			t.Errorf("node %+v", n)
		}
	}
}
