package migrate_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/migrate"
	"github.com/talops/talops/internal/testlab"
)

// labInput is the reference lab as migrate reads it, with how many nodes of each role use
// each patch (one control plane, four workers).
func labInput(t testing.TB) migrate.Input {
	t.Helper()

	files := testlab.Files(t)
	in := migrate.Input{From: "v1.13", Target: "v1.14", Talops: files["talops.yaml"], ControlPlanes: 1, Workers: 4}

	for _, p := range []struct {
		path      string
		cp, works int
	}{
		{"patches/common.yaml", 1, 4}, {"patches/controlplane.yaml", 1, 0}, {"patches/worker.yaml", 0, 3},
		{"nodes/k8s-master.yaml", 1, 0}, {"nodes/k8s-node1.yaml", 0, 1}, {"nodes/k8s-node2.yaml", 0, 1},
		{"nodes/k8s-node3.yaml", 0, 1}, {"nodes/k8s-node4.yaml", 0, 1},
	} {
		in.Patches = append(in.Patches, migrate.Patch{Path: p.path, Data: files[p.path], ControlPlanes: p.cp, Workers: p.works})
	}

	return in
}

// TestRewrite_ReferenceLabGolden shows every byte the lab's migration writes: the moved
// fields, the comments kept, the old defaults kept.
func TestRewrite_ReferenceLabGolden(t *testing.T) {
	t.Parallel()

	res, err := migrate.Rewrite(labInput(t))
	if err != nil {
		t.Fatal(err)
	}

	var b strings.Builder

	for _, f := range res.Files {
		b.WriteString("=== " + f.Path + "\n")
		b.Write(f.Data)
	}

	testlab.Golden(t, "lab.golden", b.String(), *update)
}

// TestRewrite_IsIdempotent: migrating the migrated lab changes nothing.
func TestRewrite_IsIdempotent(t *testing.T) {
	t.Parallel()

	in := labInput(t)

	first, err := migrate.Rewrite(in)
	if err != nil {
		t.Fatal(err)
	}

	again := in
	again.From = in.Target
	again.Patches = nil

	for _, p := range in.Patches {
		for _, f := range first.Files {
			if f.Path == p.Path {
				p.Data = f.Data
			}
		}

		again.Patches = append(again.Patches, p)
	}

	for _, f := range first.Files {
		if f.Path == "talops.yaml" {
			again.Talops = f.Data
		}
	}

	second, err := migrate.Rewrite(again)
	if err != nil {
		t.Fatal(err)
	}

	if second.Changed() || len(second.Moved) > 0 {
		t.Fatalf("the second migration changed %d files and moved %+v", len(second.Files), second.Moved)
	}
}
