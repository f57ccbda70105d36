//go:build realtalos

package realtalos

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"testing"

	"filippo.io/age"
)

// Before it changes the control plane, apply saves a snapshot of the real etcd, encrypted
// to the recipient: decrypted, it is a bbolt database (etcd's backend), never on disk in
// the clear.
func TestApply_EtcdSnapshotOfTheRealEtcdIsEncrypted(t *testing.T) {
	t.Parallel()

	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}

	l := newLab(t, newAddress())
	l.boot(t, true)
	l.setSysctl(t, "51")

	dir := t.TempDir()

	rep, code := l.apply(t, "--etcd-backup", dir, "--etcd-backup-recipient", id.Recipient().String())
	if code != 0 || rep.Nodes[0].Outcome != "applied" {
		t.Fatalf("apply: exit %d, %+v", code, rep.Nodes[0])
	}

	files, _ := filepath.Glob(filepath.Join(dir, "e2e-*.etcd-snapshot.age"))
	if len(files) != 1 {
		t.Fatalf("snapshots in %s: %v, want one", dir, files)
	}

	sealed, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}

	r, err := age.Decrypt(bytes.NewReader(sealed), id)
	if err != nil {
		t.Fatal(err)
	}

	db, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}

	// bbolt's meta page: its magic at offset 16 (after the page header).
	if len(db) < 4096 || binary.LittleEndian.Uint32(db[16:20]) != 0xED0CDAED {
		t.Errorf("the decrypted snapshot (%d bytes) is not a bbolt database", len(db))
	}
}
