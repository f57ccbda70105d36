package cluster

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
)

// MaxFileSize bounds every file talops reads from a repository.
const MaxFileSize = 4 << 20

// Files reads files of a repository by their slash-separated path relative to its root.
type Files interface {
	ReadFile(name string) ([]byte, error)
}

// ErrTooLarge is returned for files over MaxFileSize.
var ErrTooLarge = fmt.Errorf("file is larger than %d bytes", MaxFileSize)

// Dir reads files below one directory and refuses anything that would leave it,
// including symbolic links that point outside.
type Dir struct {
	root *os.Root
}

// OpenDir opens dir as a repository root.
func OpenDir(dir string) (*Dir, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}

	return &Dir{root: root}, nil
}

// Close releases the directory.
func (d *Dir) Close() error { return d.root.Close() }

// ReadFile reads name (relative to the root) up to MaxFileSize.
func (d *Dir) ReadFile(name string) ([]byte, error) {
	if err := CheckPath(name); err != nil {
		return nil, err
	}

	fi, err := d.root.Stat(name)
	if err != nil {
		return nil, rootError(err)
	}

	if err := checkRegular(name, fi); err != nil {
		return nil, err
	}

	f, err := d.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, rootError(err)
	}
	defer f.Close() //nolint:errcheck // read-only

	return readRegular(name, f)
}

// ReadFileBounded reads a file named outside a repository (a command-line argument, an
// age key file) up to MaxFileSize, so that a huge file is refused, not read, and a named
// pipe or a device (/dev/zero, /dev/stdin) is refused before it is opened.
func ReadFileBounded(name string) ([]byte, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}

	if err := checkRegular(name, fi); err != nil {
		return nil, err
	}

	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close() //nolint:errcheck // read-only

	return readRegular(name, f)
}

// ErrNotRegular marks a named pipe, device, socket or directory given as a file: reading
// one can block forever or never end.
var ErrNotRegular = errors.New("not a regular file")

// checkRegular refuses what is not a regular file, naming what it is.
func checkRegular(name string, fi fs.FileInfo) error {
	m := fi.Mode()
	if m.IsRegular() {
		return nil
	}

	kind := "of an unknown kind"

	switch {
	case m&fs.ModeNamedPipe != 0:
		kind = "a named pipe"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		kind = "a device"
	case m.IsDir():
		kind = "a directory"
	}

	return &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w: it is %s", ErrNotRegular, kind)}
}

// readRegular reads an opened file after checking, again, that it is a regular file:
// the name may have been replaced between the check and the open (which O_NONBLOCK keeps
// from waiting on a named pipe).
func readRegular(name string, f *os.File) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}

	if err := checkRegular(name, fi); err != nil {
		return nil, err
	}

	return readBounded(f)
}

func readBounded(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, err
	}

	if len(data) > MaxFileSize {
		return nil, ErrTooLarge
	}

	return data, nil
}

// MapFiles serves files from memory; tests and fuzzers use it.
type MapFiles map[string][]byte

// ReadFile implements Files.
func (m MapFiles) ReadFile(name string) ([]byte, error) {
	if err := CheckPath(name); err != nil {
		return nil, err
	}

	data, ok := m[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}

	if len(data) > MaxFileSize {
		return nil, ErrTooLarge
	}

	return data, nil
}

// ErrEscapes marks a path that leaves the repository directory.
var ErrEscapes = errors.New("path must stay inside the directory (no absolute paths, no ..)")

// errLinkEscapes is ErrEscapes through a symbolic link, which the path itself does not show.
var errLinkEscapes = fmt.Errorf("%w: a symbolic link on the way points outside it", ErrEscapes)

// CheckPath refuses empty, absolute and escaping paths.
func CheckPath(name string) error {
	switch {
	case name == "":
		return errors.New("path is empty")
	case strings.HasPrefix(name, "/"), strings.HasPrefix(name, `\`), len(name) > 1 && name[1] == ':':
		return ErrEscapes
	}

	for _, part := range strings.Split(strings.ReplaceAll(name, `\`, "/"), "/") {
		if part == ".." {
			return ErrEscapes
		}
	}

	if path.Clean(name) == "." {
		return errors.New("path names the directory itself")
	}

	return nil
}

// rootError turns os.Root's refusal to leave the directory into ErrEscapes. CheckPath
// already refused absolute paths and .., so what os.Root refuses is a symbolic link.
// The standard library does not export that error, so its text is the only handle.
func rootError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Err != nil && pe.Err.Error() == "path escapes from parent" {
		return errLinkEscapes
	}

	return err
}
