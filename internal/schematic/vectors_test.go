package schematic_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/schematic"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/canonical")

const (
	// vectorsDir is the copy kept with the package, so the test runs in a
	// checkout without the shared data beside it.
	vectorsDir = "testdata/vectors"
	// sharedVectorsDir is the source of that copy; CI checks out shared/ next
	// to the repository.
	sharedVectorsDir = "../../../shared/data/schematic-vectors"
	publishedDir     = "testdata/published"
)

// vectorDirs returns the vector directories to check: always the testdata
// copy, and the shared source when it is present.
func vectorDirs(t *testing.T) []string {
	t.Helper()

	dirs := []string{vectorsDir}

	if _, err := os.Stat(sharedVectorsDir); err == nil {
		dirs = append(dirs, sharedVectorsDir)
	} else {
		t.Logf("no shared vectors at %s; checking the testdata copy only", sharedVectorsDir)
	}

	return dirs
}

type vector struct {
	file string
	id   string
	data []byte
}

// readVectors reads ids.tsv and every file it names, and fails when a YAML
// file of the directory has no ID, so a new vector cannot go unchecked.
func readVectors(t *testing.T, dir string) []vector {
	t.Helper()

	tsv, err := os.ReadFile(filepath.Join(dir, "ids.tsv"))
	if err != nil {
		t.Fatalf("read ids.tsv: %v", err)
	}

	var vs []vector

	for n, line := range strings.Split(strings.TrimSpace(string(tsv)), "\n") {
		file, id, ok := strings.Cut(line, "\t")
		if !ok || len(id) != 64 {
			t.Fatalf("%s/ids.tsv line %d: want <file>\\t<64-hex id>, got %q", dir, n+1, line)
		}

		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatalf("read vector: %v", err)
		}

		vs = append(vs, vector{file: file, id: id, data: data})
	}

	yamls, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}

	for _, path := range yamls {
		name := filepath.Base(path)
		if !slices.ContainsFunc(vs, func(v vector) bool { return v.file == name }) {
			t.Errorf("%s has no line in %s/ids.tsv", name, dir)
		}
	}

	return vs
}

func TestID_ReproducesEveryFactoryVector(t *testing.T) {
	for _, dir := range vectorDirs(t) {
		for _, v := range readVectors(t, dir) {
			t.Run(dir+"/"+v.file, func(t *testing.T) {
				s, err := schematic.Load(v.data)
				if err != nil {
					t.Fatalf("Load: %v", err)
				}

				got, err := s.ID()
				if err != nil {
					t.Fatalf("ID: %v", err)
				}

				if got != v.id {
					t.Errorf("ID = %s, the factory gives %s", got, v.id)
				}
			})
		}
	}
}

func TestID_ReproducesPublishedSchematics(t *testing.T) {
	for _, v := range readVectors(t, publishedDir) {
		t.Run(v.file, func(t *testing.T) {
			s, err := schematic.Load(v.data)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}

			if got, _ := s.ID(); got != v.id {
				t.Errorf("ID = %s, published %s", got, v.id)
			}
		})
	}
}

func TestVectors_TestdataCopyMatchesShared(t *testing.T) {
	if _, err := os.Stat(sharedVectorsDir); err != nil {
		t.Skipf("no shared vectors at %s", sharedVectorsDir)
	}

	shared, err := os.ReadDir(sharedVectorsDir)
	if err != nil {
		t.Fatal(err)
	}

	local, err := os.ReadDir(vectorsDir)
	if err != nil {
		t.Fatal(err)
	}

	names := func(es []os.DirEntry) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.Name())
		}

		return out
	}

	if !slices.Equal(names(shared), names(local)) {
		t.Fatalf("files differ: shared %v, testdata %v; copy %s into %s", names(shared), names(local), sharedVectorsDir, vectorsDir)
	}

	for _, e := range shared {
		want, _ := os.ReadFile(filepath.Join(sharedVectorsDir, e.Name()))
		got, _ := os.ReadFile(filepath.Join(vectorsDir, e.Name()))

		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the shared copy", e.Name())
		}
	}
}

// TestMarshal_CanonicalEncodingGolden pins the exact bytes the IDs hash, so a
// change of encoder settings shows as a readable diff.
func TestMarshal_CanonicalEncodingGolden(t *testing.T) {
	for _, v := range readVectors(t, vectorsDir) {
		t.Run(v.file, func(t *testing.T) {
			s, err := schematic.Load(v.data)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}

			got, err := s.Marshal()
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}

			golden := filepath.Join("testdata", "canonical", v.file)

			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}

				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}

			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("read golden (run with -update to create it): %v", err)
			}

			if !bytes.Equal(got, want) {
				t.Errorf("Marshal =\n%s\nwant\n%s", got, want)
			}
		})
	}
}
