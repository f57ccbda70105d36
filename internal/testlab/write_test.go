package testlab_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/talops/talops/internal/testlab"
)

// TestWriteScaled writes testlab.Scaled to the directory TALOPS_SCALED_LAB names
// (TALOPS_SCALED_NODES nodes, 500 unless set), for measuring the whole process on a lab of
// that size (hack/rss.sh): the lab is generated where it is measured, never committed.
// Without TALOPS_SCALED_LAB it writes a small one to a temporary directory, so that what
// the measurement reads is checked on every run.
func TestWriteScaled(t *testing.T) {
	dir, nodes := os.Getenv("TALOPS_SCALED_LAB"), 500
	if dir == "" {
		dir, nodes = t.TempDir(), 12
	}

	if s := os.Getenv("TALOPS_SCALED_NODES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("TALOPS_SCALED_NODES=%q is not a number of nodes", s)
		}

		nodes = n
	}

	files := testlab.Scaled(t, nodes)

	if got := testlab.Load(t, files).Spec.Nodes; len(got) != nodes {
		t.Fatalf("the scaled lab has %d nodes, want %d", len(got), nodes)
	}

	for name, data := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}

		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}

	// What the measurement reads must be the lab the benchmarks render.
	for name, data := range files {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%s was not written as generated (%v)", name, err)
		}
	}
}
