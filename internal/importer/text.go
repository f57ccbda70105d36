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
