//go:build s3

package cli_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"filippo.io/age"

	"github.com/talops/talops/internal/backup"
	"github.com/talops/talops/internal/backupstore"
	"github.com/talops/talops/internal/backupstore/s3test"
	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/etcdsnap/etcdsnaptest"
	"github.com/talops/talops/internal/talos/talostest"
)

// s3Places hands out fresh prefixes of one bucket of a real versitygw.
func s3Places(t *testing.T) func(*testing.T) backupPlace {
	t.Helper()

	srv := s3test.Start(t)

	var n atomic.Int64

	return func(t *testing.T) backupPlace {
		t.Helper()

		dest := fmt.Sprintf("s3://%s/clusters/%d", srv.Bucket, n.Add(1))

		store, err := backupstore.OpenWith(dest, backupstore.Options{Endpoint: srv.Endpoint, Getenv: func(k string) string { return srv.Env()[k] }})
		if err != nil {
			t.Fatal(err)
		}

		return backupPlace{dest: dest, flags: []string{"--s3-endpoint", srv.Endpoint}, env: srv.Env(), store: store}
	}
}

func TestBackupS3_BackupThenVerifyFromABucket(t *testing.T) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}

	p := s3Places(t)(t)
	snap := etcdsnaptest.Snapshot(t, snapshotOps()...)

	env := maps.Clone(p.env)
	l := newApplyLab(t, env, func(n *talostest.Node) { n.Snapshot = snap })
	spool := withBackups(t, l.h)

	if err := l.h.run(append([]string{"backup", "--dir", "examples/homelab", "--to", p.dest, "--recipient", id.Recipient().String()}, p.flags...)...); err != nil {
		t.Fatalf("backup: %v\n%s", err, l.h.stderr.String())
	}

	name := "homelab-20261129T120000Z"
	if got := l.h.stdout.String(); !strings.HasPrefix(got, "Backup "+name+" written to "+p.dest+": etcd of k8s-master at revision 6, 24.0 KiB") {
		t.Errorf("stdout:\n%s", got)
	}

	objects, err := p.store.List(context.Background())
	slices.Sort(objects)

	if want := []string{name + backup.ManifestSuffix, name + backup.SnapshotSuffix}; err != nil || !slices.Equal(objects, want) {
		t.Errorf("the bucket holds %v (%v), want %v", objects, err, want)
	}

	l.h.stdout.Reset()
	env["SOPS_AGE_KEY"] = id.String()

	if err := l.h.run(append([]string{"backup", "verify", "--from", p.dest, "--latest"}, p.flags...)...); err != nil {
		t.Fatalf("verify: %v\n%s", err, l.h.stderr.String())
	}

	if got := l.h.stdout.String(); !strings.HasPrefix(got, "Backup "+name+" of homelab (2026-11-29 12:00:00 UTC) verified: 24.0 KiB, SHA-256 as the manifest says, etcd reads it and etcd's own hash matches\n") {
		t.Errorf("verify:\n%s", got)
	}

	l.h.stdout.Reset()

	if err := l.h.run(append([]string{"backup", "list", "--from", p.dest}, p.flags...)...); err != nil {
		t.Fatalf("list: %v\n%s", err, l.h.stderr.String())
	}

	if got := l.h.stdout.String(); !strings.HasPrefix(got, "Backups in "+p.dest+", oldest first:\n  "+name+"  2026-11-29 12:00:00 UTC  revision 6  24.0 KiB  Talos v1.13.9") {
		t.Errorf("list:\n%s", got)
	}

	for _, out := range []string{l.h.stdout.String(), l.h.stderr.String()} {
		if strings.Contains(out, p.env["AWS_SECRET_ACCESS_KEY"]) || strings.Contains(out, backupSecret) {
			t.Errorf("a secret was printed: %s", out)
		}
	}

	if left, _ := os.ReadDir(spool); len(left) != 0 {
		t.Errorf("a plain snapshot was left behind: %v", left)
	}
}

func TestBackupS3_VerifyFailsOnEveryDamageWithOneLine(t *testing.T) {
	t.Parallel()

	verifyCatchesEveryDamage(t, s3Places(t))
}

func TestBackupS3_RetentionDeletesThisClustersOldBackupsOnceTheNewOneIsVerified(t *testing.T) {
	retentionDeletesOnlyOldBackups(t, s3Places(t)(t))
}

func TestBackupS3_WrongCredentialsAndAMissingBucketFailWithOneLine(t *testing.T) {
	t.Parallel()

	p := s3Places(t)(t)
	endpoint := p.flags[1]

	tests := []struct {
		name    string
		dest    string
		env     map[string]string
		wantErr string
	}{
		{"a wrong secret key", p.dest, map[string]string{"AWS_ACCESS_KEY_ID": p.env["AWS_ACCESS_KEY_ID"], "AWS_SECRET_ACCESS_KEY": "not-the-secret-key"}, "talops: list " + p.dest + ": S3 endpoint " + endpoint + ": access to the bucket backups denied (SignatureDoesNotMatch): check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and the key's rights on the bucket\n"},
		{"no credentials", p.dest, map[string]string{}, "talops: backup destination " + p.dest + ": no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY\n"},
		{"a missing bucket", "s3://nobucket/homelab", p.env, "talops: list s3://nobucket/homelab: S3 endpoint " + endpoint + ": the bucket nobucket does not exist\n"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			h := newHarness(t, nil, tt.env)
			withBackups(t, h)

			err := h.run("backup", "list", "--from", tt.dest, "--s3-endpoint", endpoint)
			if cli.ExitCode(err) != cli.ExitFailure {
				t.Errorf("exit code %d, want %d", cli.ExitCode(err), cli.ExitFailure)
			}

			if got := h.stderr.String(); got != tt.wantErr {
				t.Errorf("stderr:\n%s\nwant:\n%s", got, tt.wantErr)
			}

			if strings.Contains(h.stderr.String(), "not-the-secret-key") || strings.Contains(h.stderr.String(), p.env["AWS_SECRET_ACCESS_KEY"]) {
				t.Error("a key was printed")
			}
		})
	}
}
