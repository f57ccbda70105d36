// Package testlab gives tests in-memory copies of the reference lab to edit.
package testlab

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
)

// Root is the repository root, found from this file's location.
func Root() string {
	_, file, _, _ := runtime.Caller(0)

	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Dir is the reference lab's directory.
func Dir() string { return filepath.Join(Root(), "examples", "homelab") }

// Files returns a fresh in-memory copy of the reference lab.
func Files(t testing.TB) cluster.MapFiles {
	t.Helper()

	return read(t, Dir())
}

// Examples returns a fresh in-memory copy of every repository under examples/ (each
// directory with a talops.yaml), by directory name: the reference lab and any other.
func Examples(t testing.TB) map[string]cluster.MapFiles {
	t.Helper()

	entries, err := os.ReadDir(filepath.Join(Root(), "examples"))
	if err != nil {
		t.Fatal(err)
	}

	out := map[string]cluster.MapFiles{}

	for _, e := range entries {
		dir := filepath.Join(Root(), "examples", e.Name())
		if _, err := os.Stat(filepath.Join(dir, cluster.FileName)); e.IsDir() && err == nil {
			out[e.Name()] = read(t, dir)
		}
	}

	return out
}

// read copies every file under dir into memory, by path relative to dir.
func read(t testing.TB, dir string) cluster.MapFiles {
	t.Helper()

	out := cluster.MapFiles{}

	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}

		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}

		rel, _ := filepath.Rel(dir, path)
		out[filepath.ToSlash(rel)] = data

		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	return out
}

// Edit replaces old with new in one file of the lab, failing the test if old is absent.
func Edit(t testing.TB, files cluster.MapFiles, name, old, new string) {
	t.Helper()

	s := string(files[name])
	if !strings.Contains(s, old) {
		t.Fatalf("%s does not contain %q", name, old)
	}

	files[name] = []byte(strings.Replace(s, old, new, 1))
}

// Pin is the lab's configVersion line, with the comment above it.
const Pin = "# The config format of the release the cluster was made with: a Talos minor bump keeps it\n" +
	"# (a running cluster never adopts a new format by itself), so its patches keep applying.\n" +
	"configVersion: v1.13\n"

// Unpin removes the lab's configVersion: its configs then follow the format of whatever
// talosVersion a test moves it to.
func Unpin(t testing.TB, files cluster.MapFiles) {
	t.Helper()

	Edit(t, files, "talops.yaml", Pin, "")
}

// Load loads the lab's model from files.
func Load(t testing.TB, files cluster.MapFiles) *cluster.Cluster {
	t.Helper()

	c, err := cluster.Load("examples/homelab", files)
	if err != nil {
		t.Fatal(err)
	}

	return c
}

// NoEnv is a getenv with nothing set.
func NoEnv(string) string { return "" }

// Golden compares got with testdata/name, or rewrites the file when update is set
// (go test -update; review the diff).
func Golden(t testing.TB, name, got string, update bool) {
	t.Helper()

	path := filepath.Join("testdata", name)

	if update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}

		return
	}

	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}

	if got != string(want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}
