//go:build unix

package cluster_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/talops/talops/internal/cluster"
)

// within fails the test when f has not returned after a few seconds: reading a named
// pipe nobody writes to blocks forever.
func within(t *testing.T, f func() error) error {
	t.Helper()

	done := make(chan error, 1)
	go func() { done <- f() }()

	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("still reading after 5 s")

		return nil
	}
}

func TestLoad_NamedPipeAsAPatchIsRefusedAtOnce(t *testing.T) {
	dir := t.TempDir()

	for name, data := range files(minimal) {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o700); err != nil {
			t.Fatal(err)
		}

		if name == "nodes/w1.yaml" {
			if err := syscall.Mkfifo(filepath.Join(dir, name), 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}

			continue
		}

		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}

	d, err := cluster.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close() //nolint:errcheck // the test is done with it

	err = within(t, func() error {
		_, err := cluster.Load("lab", d)

		return err
	})
	if want := "lab/talops.yaml:18: nodes[1].patches[0]: nodes/w1.yaml: not a regular file: it is a named pipe"; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
}

func TestReadFileBounded_RefusesNamedPipesAndDevicesBeforeOpeningThem(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "patch.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}

	for _, name := range []string{fifo, "/dev/zero", t.TempDir()} {
		if _, err := os.Stat(name); err != nil {
			continue
		}

		err := within(t, func() error {
			_, err := cluster.ReadFileBounded(name)

			return err
		})
		if !errors.Is(err, cluster.ErrNotRegular) {
			t.Errorf("ReadFileBounded(%s): %v, want ErrNotRegular", name, err)
		}
	}
}
