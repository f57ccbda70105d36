package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFile_ASymbolicLinkInPlaceIsRefusedAndItsTargetKept(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "authorized_keys")

	if err := os.WriteFile(target, []byte("keep me\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	link := filepath.Join(dir, "k8s-master.yaml")
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}

	err := writeFile(link, []byte("machine: {}\n"), 0o600)
	if err == nil || !strings.Contains(err.Error(), "is a symbolic link: talops does not write through it") {
		t.Errorf("err = %v, want a refusal", err)
	}

	if data, _ := os.ReadFile(target); string(data) != "keep me\n" {
		t.Errorf("the link's target now holds %q", data)
	}
}

func TestWriteFile_ARegularFileIsRewrittenPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k8s-master.yaml")

	if err := os.WriteFile(path, []byte("a much longer old content\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	if err := writeFile(path, []byte("new\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	fi, err := os.Stat(path)
	if data, _ := os.ReadFile(path); err != nil || string(data) != "new\n" || fi.Mode().Perm() != 0o600 {
		t.Errorf("file %q, mode %v, %v", data, fi.Mode(), err)
	}
}
