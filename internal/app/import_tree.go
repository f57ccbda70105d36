package app

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/talops/talops/internal/gitrev"
	"github.com/talops/talops/internal/importer"
)

// sourceTree is where an import may read its source's files from: the Git repository
// holding the source's directory (found by walking up to a .git, a directory or a file),
// else that directory alone. No file outside it is read, by its path or through a
// symbolic link.
type sourceTree struct {
	d *Deps
	// dir is the source's directory as given, abs the same made absolute (when Getwd
	// can); boundary the directory nothing is read outside of; within dir's slash path
	// below the repository's root ("" when no repository holds it).
	dir, abs, boundary, within string
}

// openSourceTree finds the repository holding dir. Without Getwd and Lstat (a build that
// cannot look), dir alone is the boundary.
func openSourceTree(d *Deps, dir string) (*sourceTree, error) {
	t := &sourceTree{d: d, dir: dir, abs: filepath.Clean(dir), boundary: filepath.Clean(dir)}
	if d.Getwd == nil || d.Lstat == nil {
		return t, nil
	}

	abs := dir
	if !filepath.IsAbs(abs) {
		wd, err := d.Getwd()
		if err != nil {
			return nil, fmt.Errorf("where %s is: %w", dir, err)
		}

		abs = filepath.Join(wd, dir)
	}

	abs = filepath.Clean(abs)
	t.abs, t.boundary = abs, abs

	root, err := gitrev.WorkTree(gitrev.Files{ReadFile: d.ReadFile, Lstat: d.Lstat}, abs)
	if err != nil || root == "" {
		return t, err
	}

	within, err := filepath.Rel(root, abs)
	if err != nil {
		return nil, fmt.Errorf("where %s is in %s: %w", dir, root, err)
	}

	t.boundary, t.within = root, filepath.ToSlash(within)

	return t, nil
}

// read reads a YAML file by its slash path relative to the source's directory (readYAML),
// refusing one outside the boundary or reached through a symbolic link leading out of it
// (*importer.OutsideError).
func (t *sourceTree) read(rel string) ([]byte, error) {
	file := filepath.Join(t.dir, filepath.FromSlash(rel))

	if err := t.inside(file, filepath.Join(t.abs, filepath.FromSlash(rel))); err != nil {
		return nil, err
	}

	return readYAML(t.d, file)
}

// inside refuses file (abs, made absolute) outside the boundary, by its path or where its
// links lead.
func (t *sourceTree) inside(file, abs string) error {
	what := "the source's directory " + t.boundary
	if t.within != "" {
		what = "the Git repository " + t.boundary
	}

	if !holds(t.boundary, abs) {
		return &importer.OutsideError{Path: file, Boundary: what}
	}

	if t.d.EvalSymlinks == nil {
		return nil
	}

	real, err := t.d.EvalSymlinks(abs)
	if err != nil {
		return nil //nolint:nilerr // a file that does not resolve is the read's error to report
	}

	root, err := t.d.EvalSymlinks(t.boundary)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", t.boundary, err)
	}

	if !holds(root, real) {
		return &importer.OutsideError{Path: file, Boundary: what, Link: true}
	}

	return nil
}

// holds says whether path lies in dir (both cleaned, of the same kind).
func holds(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)

	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
