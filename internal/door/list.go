package door

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ListDisk lists the regular files below dir on disk, following symbolic links to files
// as topf does, as slash paths relative to dir in walk order; a missing dir has none.
func ListDisk(dir string) ([]string, error) {
	var out []string

	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}

		if e.IsDir() {
			return nil
		}

		if e.Type()&fs.ModeSymlink != 0 {
			info, err := os.Stat(p)
			if err != nil || !info.Mode().IsRegular() {
				return nil //nolint:nilerr // a dangling link or one to a directory is no patch here
			}
		} else if !e.Type().IsRegular() {
			return nil
		}

		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return fmt.Errorf("list %s: %w", dir, err)
		}

		out = append(out, filepath.ToSlash(rel))

		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}

	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}

	return out, nil
}
