package etcdsnap_test

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/talops/talops/internal/etcdsnap"
	"github.com/talops/talops/internal/etcdsnap/etcdsnaptest"
)

const secret = "s3cr3t-value-never-printed"

func cluster(t *testing.T) []etcdsnaptest.Op {
	t.Helper()

	return []etcdsnaptest.Op{
		etcdsnaptest.Put("/registry/configmaps/default/a", "a"),
		etcdsnaptest.Put("/registry/configmaps/default/b", "b"),
		etcdsnaptest.Put("/registry/secrets/default/token", secret),
		etcdsnaptest.Put("/registry/apiregistration.k8s.io/apiservices/v1.apps", "{}"),
		etcdsnaptest.Put("/registry/configmaps/default/a", "a2"),
		etcdsnaptest.Delete("/registry/configmaps/default/b"),
		etcdsnaptest.Put("compact_rev_key", "x"),
	}
}

func TestRead_CountsTheLiveKeysPerResourceAtTheNewestRevision(t *testing.T) {
	t.Parallel()

	dir := t.TempDir()

	c, err := etcdsnap.Read(bytes.NewReader(etcdsnaptest.Snapshot(t, cluster(t)...)), dir)
	if err != nil {
		t.Fatal(err)
	}

	if c.Revision != 8 || c.Keys != 4 || !c.EtcdHash {
		t.Errorf("revision %d, keys %d, etcd hash %t; want 8, 4, true", c.Revision, c.Keys, c.EtcdHash)
	}

	want := map[string]int{"configmaps": 1, "secrets": 1, "apiregistration.k8s.io/apiservices": 1}
	if len(c.Resources) != len(want) {
		t.Errorf("resources %v, want %v", c.Resources, want)
	}

	for r, n := range want {
		if c.Resources[r] != n {
			t.Errorf("%s: %d, want %d", r, c.Resources[r], n)
		}
	}

	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the plain snapshot was left behind: %v", left)
	}
}

// A database copied from a member's data directory has no hash after it; it reads alike.
func TestRead_ADatabaseWithoutEtcdsHashReads(t *testing.T) {
	t.Parallel()

	c, err := etcdsnap.Read(bytes.NewReader(etcdsnaptest.Database(t, cluster(t)...)), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}

	if c.Revision != 8 || c.EtcdHash {
		t.Errorf("revision %d, etcd hash %t", c.Revision, c.EtcdHash)
	}
}

func TestRead_RefusesWhatEtcdCouldNotRestore(t *testing.T) {
	t.Parallel()

	good := etcdsnaptest.Snapshot(t, cluster(t)...)
	db := etcdsnaptest.Database(t, cluster(t)...)

	tests := []struct {
		name    string
		data    []byte
		wantErr string
	}{
		{name: "etcd's hash does not match", data: flip(good, len(good)-1), wantErr: "the etcd snapshot is corrupt: etcd's SHA-256 at its end does not match the database"},
		{name: "truncated database", data: db[:len(db)-4096], wantErr: "the etcd snapshot is corrupt: truncated: its database is"},
		{name: "empty", data: nil, wantErr: "the etcd snapshot is corrupt: it is empty"},
		{name: "not a database", data: []byte("etcd snapshot of k8s-master\n"), wantErr: "the etcd snapshot is corrupt: bbolt cannot open it:"},
		{name: "a bbolt database that is not etcd's", data: etcdsnaptest.Bolt(t, "other"), wantErr: `the etcd snapshot is corrupt: it has no "key" bucket: not an etcd snapshot`},
		{name: "a corrupt page", data: corruptPage(db), wantErr: "the etcd snapshot is corrupt: "},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			dir := t.TempDir()

			_, err := etcdsnap.Read(bytes.NewReader(tt.data), dir)

			var ce *etcdsnap.CorruptError
			if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), tt.wantErr) {
				t.Fatalf("Read = %v, want an error starting %q", err, tt.wantErr)
			}

			if strings.Contains(err.Error(), secret) {
				t.Errorf("the error quotes a value: %v", err)
			}

			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("the plain snapshot was left behind: %v", left)
			}
		})
	}
}

func flip(data []byte, i int) []byte {
	out := bytes.Clone(data)
	out[i] ^= 0xff

	return out
}

// corruptPage overwrites every page past the two meta pages and the freelist with noise:
// the root page of the buckets is among them.
func corruptPage(db []byte) []byte {
	out := bytes.Clone(db)
	for i := 3 * 4096; i < len(out); i++ {
		out[i] = byte(i * 7)
	}

	return out
}
