package app

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

func TestNoLinkIn_RefusesALinkAtOrAboveARelativeSnapshotDirectory(t *testing.T) {
	t.Parallel()

	// A tree as a merged commit may leave it in the workspace.
	tree := fstest.MapFS{
		"plain/backups":       {Mode: fs.ModeDir},
		"talops-etcd-backups": {Mode: fs.ModeSymlink},
		"linked":              {Mode: fs.ModeSymlink},
		"abs/link":            {Mode: fs.ModeSymlink},
		"abs/dir":             {Mode: fs.ModeDir},
	}
	lstat := func(name string) (fs.FileInfo, error) {
		return fs.Lstat(tree, filepath.ToSlash(filepath.Clean(name)))
	}

	tests := []struct {
		name, dir string
		wantErr   string
	}{
		{name: "the default directory, committed as a link", dir: "talops-etcd-backups", wantErr: "talops-etcd-backups is a symbolic link: talops does not write the etcd snapshot through it (remove it, or name another directory for the snapshot)"},
		{name: "a directory below a committed link", dir: "linked/backups", wantErr: "linked is a symbolic link: talops does not write the etcd snapshot through it (remove it, or name another directory for the snapshot)"},
		{name: "a plain directory", dir: "plain/backups"},
		{name: "a directory not created yet", dir: "plain/new/backups"},
		{name: "a directory up from the working directory", dir: "../plain/backups"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			err := noLinkIn(lstat, tt.dir)

			got := ""
			if err != nil {
				got = err.Error()
			}

			if got != tt.wantErr {
				t.Errorf("noLinkIn(%q) = %q, want %q", tt.dir, got, tt.wantErr)
			}
		})
	}
}

// An absolute directory is the user's own: links above its last element are theirs to have
// (a home directory on another disk), a link at it is refused.
func TestNoLinkIn_AbsoluteDirectoryIsRefusedOnlyWhenItIsALink(t *testing.T) {
	t.Parallel()

	root := t.TempDir()
	real := filepath.Join(root, "real")

	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}

	if err := os.Symlink(real, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}

	if err := noLinkIn(os.Lstat, filepath.Join(root, "link")); err == nil {
		t.Error("a link as the snapshot directory was accepted")
	}

	if err := noLinkIn(os.Lstat, filepath.Join(root, "link", "backups")); err != nil {
		t.Errorf("a directory below a link of the user's own: %v", err)
	}
}
