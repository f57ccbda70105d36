package door_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/talops/talops/internal/door"
)

// TestListDisk_WalkOrderFilesAndLinksToFiles: a directory's files in walk order (a/b.yaml
// before a-c.yaml, as a walk visits the directory a first), links to files included,
// directories and dangling links not.
func TestListDisk_WalkOrderFilesAndLinksToFiles(t *testing.T) {
	dir := t.TempDir()

	for _, f := range []string{"a/b.yaml", "a-c.yaml", "z.yaml"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}

		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	if err := os.Symlink(filepath.Join(dir, "z.yaml"), filepath.Join(dir, "link.yaml")); err != nil {
		t.Fatal(err)
	}

	if err := os.Symlink(filepath.Join(dir, "missing"), filepath.Join(dir, "dangling.yaml")); err != nil {
		t.Fatal(err)
	}

	got, err := door.ListDisk(dir)
	if err != nil {
		t.Fatal(err)
	}

	if want := []string{"a/b.yaml", "a-c.yaml", "link.yaml", "z.yaml"}; !slices.Equal(got, want) {
		t.Fatalf("want %q, got %q", want, got)
	}

	if none, err := door.ListDisk(filepath.Join(dir, "nope")); err != nil || none != nil {
		t.Fatalf("a missing directory: want no files and no error, got %q, %v", none, err)
	}
}
