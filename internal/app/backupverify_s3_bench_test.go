//go:build s3

package app_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"filippo.io/age"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/backup"
	"github.com/talops/talops/internal/backupstore"
	"github.com/talops/talops/internal/backupstore/s3test"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/etcdsnap"
	"github.com/talops/talops/internal/etcdsnap/etcdsnaptest"
)

// BenchmarkBackupVerify_S3_256MiB times backup verify of a 256 MiB snapshot in a real
// versitygw against what it cannot do without: fetching, decrypting and hashing it. The
// rest of the drill (etcd's reader, spooling the plain snapshot to a temporary file and
// checking every page) is what the ratio says.
func BenchmarkBackupVerify_S3_256MiB(b *testing.B) {
	ctx := context.Background()
	srv := s3test.Start(b)
	dest := "s3://" + srv.Bucket + "/bench"

	id, err := age.GenerateX25519Identity()
	if err != nil {
		b.Fatal(err)
	}

	env := map[string]string{"SOPS_AGE_KEY": id.String()}
	for k, v := range srv.Env() {
		env[k] = v
	}

	getenv := func(k string) string { return env[k] }

	store, err := backupstore.OpenWith(dest, backupstore.Options{Endpoint: srv.Endpoint, Getenv: getenv})
	if err != nil {
		b.Fatal(err)
	}

	name, size := put256MiB(b, store, id)

	spool := b.TempDir()
	d := &app.Deps{Outside: app.Outside{
		Getenv:       getenv,
		ReadFile:     os.ReadFile,
		OpenDir:      func(string) (cluster.Files, func() error, error) { return nil, nil, fs.ErrNotExist },
		BackupStore:  backupstore.OpenWith,
		ReadSnapshot: func(r io.Reader) (backup.Contents, error) { return etcdsnap.Read(r, spool) },
	}}

	var verify, baseline time.Duration

	b.SetBytes(size)

	for range b.N {
		start := time.Now()

		if _, err := app.BackupVerify(ctx, d, app.VerifyOptions{Dir: ".", From: dest, S3: app.S3Options{Endpoint: srv.Endpoint}, Name: name}); err != nil {
			b.Fatal(err)
		}

		verify += time.Since(start)
		start = time.Now()

		decryptAndHash(b, store, name, id)

		baseline += time.Since(start)
	}

	b.ReportMetric(verify.Seconds()/float64(b.N), "verify-s/op")
	b.ReportMetric(baseline.Seconds()/float64(b.N), "decrypt+hash-s/op")
	b.ReportMetric(float64(verify)/float64(baseline), "verify/decrypt+hash")
}

// put256MiB writes a backup of a real etcd snapshot of some 256 MiB: 4096 keys of 64 KiB.
func put256MiB(b *testing.B, store backup.Store, id *age.X25519Identity) (string, int64) {
	b.Helper()

	ops := make([]etcdsnaptest.Op, 0, 4096)
	value := strings.Repeat("v", 64<<10)

	for i := range 4096 {
		ops = append(ops, etcdsnaptest.Put(fmt.Sprintf("/registry/configmaps/default/c%04d", i), value))
	}

	snap := etcdsnaptest.Snapshot(b, ops...)
	at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	name := backup.Name("homelab", at)
	sum := sha256.Sum256(snap)

	var sealed bytes.Buffer

	w, err := age.Encrypt(&sealed, id.Recipient())
	if err != nil {
		b.Fatal(err)
	}

	if _, err := w.Write(snap); err != nil {
		b.Fatal(err)
	}

	if err := w.Close(); err != nil {
		b.Fatal(err)
	}

	m := backup.Manifest{Name: name, Snapshot: name + backup.SnapshotSuffix, Cluster: "homelab", Time: at, Node: "k8s-master", Size: int64(len(snap)), SHA256: hex.EncodeToString(sum[:])}

	data, err := m.Encode()
	if err != nil {
		b.Fatal(err)
	}

	ctx := context.Background()

	if err := store.Put(ctx, m.Snapshot, &sealed); err != nil {
		b.Fatal(err)
	}

	if err := store.Put(ctx, name+backup.ManifestSuffix, bytes.NewReader(data)); err != nil {
		b.Fatal(err)
	}

	return name, int64(len(snap))
}

// decryptAndHash is the least a drill does: fetch the snapshot, decrypt it, hash it.
func decryptAndHash(b *testing.B, store backup.Store, name string, id age.Identity) {
	b.Helper()

	r, err := store.Get(context.Background(), name+backup.SnapshotSuffix)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close() //nolint:errcheck // read-only

	plain, err := age.Decrypt(r, id)
	if err != nil {
		b.Fatal(err)
	}

	if _, err := io.Copy(sha256.New(), plain); err != nil {
		b.Fatal(err)
	}
}
