package app

import (
	"errors"
	"io/fs"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/yamlpos"
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

// readYAML reads a YAML file of a source repository (an import's): bounded in size like
// repository files, and in what its aliases expand to before anything decodes it. A file
// over the budget is a *cluster.InputError at the alias that crossed it; a read error is
// returned as it is.
func readYAML(d *Deps, file string) ([]byte, error) {
	data, err := d.ReadFile(file)
	if err != nil {
		return nil, err
	}

	if err := BoundedYAML(file, data); err != nil {
		return nil, err
	}

	return data, nil
}

// BoundedYAML checks YAML bytes against the decoding budget (yamlpos.Check): nil, or a
// *cluster.InputError naming file and the line of the alias that crossed it.
func BoundedYAML(file string, data []byte) error {
	var over *yamlpos.BudgetError
	if err := yamlpos.Check(data); errors.As(err, &over) {
		return &cluster.InputError{File: file, Line: over.Line, Msg: "YAML: " + over.Msg}
	}

	return nil
}
