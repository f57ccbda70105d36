package backupstore_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talops/talops/internal/backup"
	"github.com/talops/talops/internal/backupstore"
)

// failing reads some bytes, then fails: a stream cut off.
type failing struct{ n int }

func (f *failing) Read(p []byte) (int, error) {
	if f.n > 0 {
		f.n = 0

		return copy(p, "partial"), nil
	}

	return 0, errors.New("stream cut")
}

func TestDir_AnObjectIsThereWholeOrNotAtAll(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	dir := backupstore.Dir(filepath.Join(t.TempDir(), "backups"))

	if err := dir.Put(ctx, "a.json", &failing{n: 1}); err == nil {
		t.Fatal("a cut stream was written")
	}

	if got, _ := dir.List(ctx); len(got) != 0 {
		t.Errorf("a cut stream left %v", got)
	}

	if err := dir.Put(ctx, "a.json", strings.NewReader("{}")); err != nil {
		t.Fatal(err)
	}

	if err := dir.Put(ctx, "a.json", strings.NewReader("again")); !errors.Is(err, fs.ErrExist) {
		t.Errorf("an object was replaced: %v", err)
	}

	r, err := dir.Get(ctx, "a.json")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close() //nolint:errcheck // read-only

	if data, _ := io.ReadAll(r); string(data) != "{}" {
		t.Errorf("read %q", data)
	}

	if fi, _ := os.Stat(filepath.Join(string(dir), "a.json")); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}

	if _, err := dir.Get(ctx, "b.json"); !errors.Is(err, backup.ErrNotFound) {
		t.Errorf("a missing object: %v", err)
	}

	if _, err := dir.Get(ctx, "../a.json"); err == nil {
		t.Error("a name out of the directory was read")
	}

	if err := dir.Delete(ctx, "a.json"); err != nil {
		t.Fatal(err)
	}

	if err := dir.Delete(ctx, "a.json"); err != nil {
		t.Errorf("deleting what is gone: %v", err)
	}

	if got, _ := dir.List(ctx); len(got) != 0 {
		t.Errorf("after the delete: %v", got)
	}

	if err := dir.Delete(ctx, "../a.json"); err == nil {
		t.Error("a name out of the directory was deleted")
	}
}
