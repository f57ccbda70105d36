package app

import (
	"errors"
	"io/fs"

	"github.com/talops/talops/internal/cluster"
)

// ReadInputFile reads a file named on the command line, bounded like repository files.
// Errors are one *cluster.InputError naming the file.
func ReadInputFile(d *Deps, file string) ([]byte, error) {
	data, err := d.ReadFile(file)

	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, &cluster.InputError{File: file, Msg: "file not found"}
	case errors.Is(err, cluster.ErrTooLarge):
		return nil, &cluster.InputError{File: file, Msg: err.Error()}
	case err != nil:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}

		return nil, &cluster.InputError{File: file, Msg: "cannot read: " + err.Error()}
	case len(data) > cluster.MaxFileSize:
		return nil, &cluster.InputError{File: file, Msg: cluster.ErrTooLarge.Error()}
	}

	return data, nil
}
