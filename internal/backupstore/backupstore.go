// Package backupstore holds backups where a destination names: a directory, or a prefix of
// an S3-compatible bucket, s3://bucket/prefix.
package backupstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/talops/talops/internal/backup"
)

// Open returns the store dest names, with no options: a directory, or a bucket, which
// then has no endpoint (OpenWith gives it one).
func Open(dest string) (backup.Store, error) { return OpenWith(dest, Options{}) }

// OpenWith returns the store dest names: s3://bucket/prefix is a bucket at o's endpoint,
// anything else without :// a directory.
func OpenWith(dest string, o Options) (backup.Store, error) {
	switch {
	case dest == "":
		return nil, errors.New("no backup destination")
	case strings.HasPrefix(dest, "s3://"):
		return OpenS3(dest, o)
	case strings.Contains(dest, "://"):
		return nil, fmt.Errorf("backup destination %s: a directory or s3://bucket/prefix", dest)
	default:
		return Dir(dest), nil
	}
}

// Dir is a directory of backups: each object a file of it, mode 0600.
type Dir string

func (d Dir) String() string { return string(d) }

// Put writes the object to a temporary file of the directory and renames it into place:
// an object is there whole or not at all. The directory is created (0700); a directory
// that is a symbolic link is refused, as apply refuses it for its snapshots.
func (d Dir) Put(_ context.Context, name string, r io.Reader) error {
	if err := d.check(name); err != nil {
		return err
	}

	if err := os.MkdirAll(string(d), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", d, err)
	}

	if fi, err := os.Lstat(string(d)); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link: talops does not write backups through it", d)
	}

	path := filepath.Join(string(d), name)
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("write %s: %w", path, fs.ErrExist)
	}

	f, err := os.CreateTemp(string(d), "."+name+".partial-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}

	fail := func(err error) error {
		f.Close()           //nolint:errcheck // the first error matters
		os.Remove(f.Name()) //nolint:errcheck // the first error matters

		return fmt.Errorf("write %s: %w", path, err)
	}

	if err := f.Chmod(0o600); err != nil {
		return fail(err)
	}

	if _, err := io.Copy(f, r); err != nil {
		return fail(err)
	}

	if err := f.Sync(); err != nil {
		return fail(err)
	}

	if err := f.Close(); err != nil {
		return fail(err)
	}

	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name()) //nolint:errcheck // the rename error matters

		return fmt.Errorf("write %s: %w", path, err)
	}

	return nil
}

// Get opens the object's file.
func (d Dir) Get(_ context.Context, name string) (io.ReadCloser, error) {
	if err := d.check(name); err != nil {
		return nil, err
	}

	f, err := os.Open(filepath.Join(string(d), name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", filepath.Join(string(d), name), backup.ErrNotFound)
	}

	return f, err
}

// List names the directory's files; a missing directory holds none.
func (d Dir) List(context.Context) ([]string, error) {
	entries, err := os.ReadDir(string(d))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}

	if err != nil {
		return nil, err
	}

	var out []string

	for _, e := range entries {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}

	return out, nil
}

// Delete removes the object's file; one already gone is no error.
func (d Dir) Delete(_ context.Context, name string) error {
	if err := d.check(name); err != nil {
		return err
	}

	if err := os.Remove(filepath.Join(string(d), name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}

	return nil
}

// check refuses an object name that is no plain file name of the directory.
func (d Dir) check(name string) error {
	if name == "" || name != filepath.Base(name) || strings.HasPrefix(name, ".") {
		return fmt.Errorf("%q is no backup object name", name)
	}

	return nil
}
