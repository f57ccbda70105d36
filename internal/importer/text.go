package importer

import (
	"errors"
	"path"
	"strings"
)

// OneLine is an error's message on one line, as a finding or an input error carries it.
func OneLine(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", "; ")
}

// CleanRel cleans a slash path a source names relative to its directory, and refuses one
// that is absolute or leaves it; dir names that directory in the error ("the talconfig's
// directory").
func CleanRel(p, dir string) (string, error) {
	c := path.Clean(strings.TrimPrefix(p, "./"))
	if path.IsAbs(c) || c == ".." || strings.HasPrefix(c, "../") {
		return "", errors.New("outside " + dir)
	}

	return c, nil
}

// OutsideError is a file a source names outside the repository the import may read (the
// Git repository holding the source, else the source's directory), by its path or
// through a symbolic link (Link): the import is refused, where a file it cannot read is
// only left out.
type OutsideError struct {
	Path, Boundary string
	Link           bool
}

func (e *OutsideError) Error() string {
	if e.Link {
		return e.Path + " is a symbolic link out of " + e.Boundary
	}

	return e.Path + " is outside " + e.Boundary
}

// SharedDir is where a file a source names outside its own directory, but inside the Git
// repository holding it (a patch several clusters share), is written in the new
// repository: under its path from that repository's root.
const SharedDir = "shared"

// Locate places a file a source names by a slash path relative to its directory: read is
// the path to read it by (relative to that directory, climbing out of it with ".."), out
// its path in the new repository (SharedDir/<path from the root> when it lies outside the
// directory). within is the directory's slash path below the root of the Git repository
// holding it ("." the root itself; "" when no repository holds it, and nothing outside
// the directory is read). A path that leaves the root is an *OutsideError; an absolute one
// is refused as CleanRel refuses it.
func Locate(p, dir, within string) (read, out string, err error) {
	c, err := CleanRel(p, dir)
	if err == nil {
		return c, c, nil
	}

	c = path.Clean(strings.TrimPrefix(p, "./"))
	if path.IsAbs(c) {
		return "", "", err
	}

	fromRoot := path.Join(within, c)
	if within == "" || fromRoot == ".." || strings.HasPrefix(fromRoot, "../") {
		boundary := "the Git repository holding " + dir
		if within == "" {
			boundary = dir + ", and no Git repository holds it"
		}

		return "", "", &OutsideError{Path: p, Boundary: boundary}
	}

	return c, path.Join(SharedDir, fromRoot), nil
}
