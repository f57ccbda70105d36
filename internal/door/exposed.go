package door

import (
	"fmt"
	"path/filepath"

	"github.com/talops/talops/internal/gitrev"
)

// RefuseExposed refuses to write a credential (a talosconfig, a kubeconfig, rendered
// configs: dir) to path where Git would pick it up: inside a work tree, ignored by none of
// its rules (gitrev.CheckExposed). cure says how to write it anyway ("--force"); without
// Lstat no work tree is looked for.
func (d *Deps) RefuseExposed(path string, dir bool, cure string) error {
	if d.Lstat == nil {
		return nil
	}

	abs := path
	if !filepath.IsAbs(abs) {
		if d.Getwd == nil {
			return nil
		}

		wd, err := d.Getwd()
		if err != nil {
			return fmt.Errorf("where %s is: %w", path, err)
		}

		abs = filepath.Join(wd, path)
	}

	err := gitrev.CheckExposed(gitrev.Files{ReadFile: d.ReadFile, Lstat: d.Lstat}, abs, dir)
	if err != nil && cure != "" {
		return fmt.Errorf("%w; %s writes it anyway", err, cure)
	}

	return err
}
