package scaffold_test

import (
	"testing"

	"github.com/talops/talops/internal/scaffold"
)

// TestFileSet_KeepsOrderAndRefusesTwoContentsForOnePath: files come out in the order they
// went in, a repeated identical file is kept once, and one path with two contents fails.
func TestFileSet_KeepsOrderAndRefusesTwoContentsForOnePath(t *testing.T) {
	t.Parallel()

	var s scaffold.FileSet

	for _, f := range []scaffold.File{{Path: "b.yaml", Data: []byte("b")}, {Path: "a.yaml", Data: []byte("a")}, {Path: "b.yaml", Data: []byte("b")}} {
		if err := s.Add(f.Path, f.Data); err != nil {
			t.Fatalf("add %s: %v", f.Path, err)
		}
	}

	if err := s.Add("a.yaml", []byte("other")); err == nil {
		t.Error("a second content for a.yaml was accepted")
	}

	got := s.Files()
	if len(got) != 2 || got[0].Path != "b.yaml" || got[1].Path != "a.yaml" || string(got[1].Data) != "a" {
		t.Errorf("files %+v, want b.yaml then a.yaml as first added", got)
	}
}
