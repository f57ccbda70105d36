package cli_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"filippo.io/age"

	"github.com/talops/talops/internal/backup"
	"github.com/talops/talops/internal/backupstore"
	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/etcdsnap"
	"github.com/talops/talops/internal/etcdsnap/etcdsnaptest"
	"github.com/talops/talops/internal/talos/talostest"
)

const backupSecret = "c2VjcmV0LXRva2VuLW5ldmVyLXByaW50ZWQ="

// snapshotOps are the key space of a small cluster: two ConfigMaps (one deleted again), a
// Secret whose value must never be printed, a CRD.
func snapshotOps() []etcdsnaptest.Op {
	return []etcdsnaptest.Op{
		etcdsnaptest.Put("/registry/configmaps/default/a", "a"),
		etcdsnaptest.Put("/registry/configmaps/default/b", "b"),
		etcdsnaptest.Put("/registry/secrets/kube-system/token", backupSecret),
		etcdsnaptest.Put("/registry/apiextensions.k8s.io/customresourcedefinitions/widgets.example.com", "{}"),
		etcdsnaptest.Delete("/registry/configmaps/default/b"),
	}
}

// withBackups gives the harness the real directory store and snapshot reader, spooling
// into a directory the test watches.
func withBackups(t *testing.T, h *harness) (spool string) {
	t.Helper()

	spool = t.TempDir()
	h.deps.BackupStore = backupstore.OpenWith
	h.deps.ReadSnapshot = func(r io.Reader) (backup.Contents, error) { return etcdsnap.Read(r, spool) }

	return spool
}

func TestBackup_StreamsAHealthyMembersSnapshotEncryptedWithAManifestThenVerifyPasses(t *testing.T) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}

	snap := etcdsnaptest.Snapshot(t, snapshotOps()...)
	env := map[string]string{}

	l := newApplyLab(t, env, func(n *talostest.Node) { n.Snapshot = snap })
	spool := withBackups(t, l.h)
	dest := filepath.Join(t.TempDir(), "backups")

	if err := l.h.run("backup", "--dir", "examples/homelab", "--to", dest, "--recipient", id.Recipient().String()); err != nil {
		t.Fatalf("backup: %v\n%s", err, l.h.stderr.String())
	}

	sum := sha256.Sum256(snap)
	name := "homelab-20261129T120000Z"

	want := "Backup " + name + " written to " + dest + ": etcd of k8s-master at revision 6, 24.0 KiB (SHA-256 " + hex.EncodeToString(sum[:]) + ")\n" +
		"revision 6, 3 keys\n" +
		"  apiextensions.k8s.io/customresourcedefinitions 1\n" +
		"  configmaps                               1\n" +
		"  secrets                                  1\n"
	if got := l.h.stdout.String(); got != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", got, want)
	}

	entries, err := os.ReadDir(dest)
	if err != nil {
		t.Fatal(err)
	}

	var files []string

	for _, e := range entries {
		fi, _ := e.Info()
		files = append(files, e.Name()+" "+fi.Mode().String())
	}

	if got := strings.Join(files, ", "); got != name+".json -rw-------, "+name+".snapshot.age -rw-------" {
		t.Errorf("the destination holds %s", got)
	}

	sealed, _ := os.ReadFile(filepath.Join(dest, name+backup.SnapshotSuffix))
	if bytes.Contains(sealed, []byte(backupSecret)) || bytes.Contains(sealed, []byte("/registry/")) {
		t.Error("the snapshot was written in the clear")
	}

	data, _ := os.ReadFile(filepath.Join(dest, name+backup.ManifestSuffix))

	m, err := backup.DecodeManifest(data)
	if err != nil {
		t.Fatal(err)
	}

	wantM := backup.Manifest{
		Name: name, Snapshot: name + ".snapshot.age", Cluster: "homelab", Time: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC), Node: "k8s-master",
		Revision: 6, Size: int64(len(snap)), SHA256: hex.EncodeToString(sum[:]), TalosVersion: "v1.13.9", KubernetesVersion: m.KubernetesVersion,
	}
	if m != wantM || !strings.HasPrefix(m.KubernetesVersion, "v1.") {
		t.Errorf("manifest %+v, want %+v", m, wantM)
	}

	// The drill: with the identity, the newest backup verifies.
	l.h.stdout.Reset()
	env["SOPS_AGE_KEY"] = id.String()

	if err := l.h.run("backup", "verify", "--from", dest, "--latest"); err != nil {
		t.Fatalf("verify: %v\n%s", err, l.h.stderr.String())
	}

	wantVerify := "Backup " + name + " of homelab (2026-11-29 12:00:00 UTC) verified: 24.0 KiB, SHA-256 as the manifest says, etcd reads it and etcd's own hash matches\n" +
		strings.SplitN(want, "\n", 2)[1]
	if got := l.h.stdout.String(); got != wantVerify {
		t.Errorf("verify:\n%s\nwant:\n%s", got, wantVerify)
	}

	for _, out := range []string{l.h.stdout.String(), l.h.stderr.String(), string(data)} {
		if strings.Contains(out, backupSecret) || strings.Contains(out, id.String()) {
			t.Errorf("a secret was printed or written: %s", out)
		}
	}

	if left, _ := os.ReadDir(spool); len(left) != 0 {
		t.Errorf("a plain snapshot was left behind: %v", left)
	}
}

// A member outside quorum reports etcd errors: no snapshot is taken from it, and with no
// other control plane, none at all.
func TestBackup_NoSnapshotFromAMemberThatReportsEtcdErrors(t *testing.T) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}

	l := newApplyLab(t, nil, func(n *talostest.Node) { n.EtcdUnhealthy = true })
	withBackups(t, l.h)
	dest := t.TempDir()

	err = l.h.run("backup", "--dir", "examples/homelab", "--to", dest, "--recipient", id.Recipient().String())
	if cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("backup: %v", err)
	}

	want := "talops: no control plane has a healthy etcd member to take the snapshot from:\ntalops: k8s-master (10.0.20.100): etcd reports etcdserver: no leader\n"
	if got := l.h.stderr.String(); got != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
	}

	if strings.Contains(strings.Join(l.journal.Entries(), "\n"), "EtcdSnapshot") {
		t.Error("a snapshot was taken")
	}

	if entries, _ := os.ReadDir(dest); len(entries) != 0 {
		t.Errorf("wrote %v", entries)
	}
}

// writeBackup writes a backup of snap, encrypted to r, as backup writes it.
func writeBackup(t *testing.T, dest string, snap []byte, r age.Recipient) string {
	t.Helper()

	return putBackup(t, backupstore.Dir(dest), "homelab", time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC), snap, r)
}

// writeBackupOf writes a backup of cluster taken at into the directory dest.
func writeBackupOf(t *testing.T, dest, cluster string, at time.Time, snap []byte, r age.Recipient) string {
	t.Helper()

	return putBackup(t, backupstore.Dir(dest), cluster, at, snap, r)
}

// putBackup writes a backup of cluster taken at at into store, as backup writes it.
func putBackup(t *testing.T, store backup.Store, cluster string, at time.Time, snap []byte, r age.Recipient) string {
	t.Helper()

	ctx := context.Background()
	name := backup.Name(cluster, at)
	sum := sha256.Sum256(snap)

	var sealed bytes.Buffer

	w, err := age.Encrypt(&sealed, r)
	if err != nil {
		t.Fatal(err)
	}

	if _, err := w.Write(snap); err != nil {
		t.Fatal(err)
	}

	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	m := backup.Manifest{Name: name, Snapshot: name + backup.SnapshotSuffix, Cluster: cluster, Time: at.UTC(), Node: "k8s-master", Revision: 6, Size: int64(len(snap)), SHA256: hex.EncodeToString(sum[:])}

	data, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}

	if err := store.Put(ctx, m.Snapshot, &sealed); err != nil {
		t.Fatal(err)
	}

	if err := store.Put(ctx, name+backup.ManifestSuffix, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}

	return name
}

// editObject replaces an object of store with what change makes of it.
func editObject(t *testing.T, store backup.Store, object string, change func([]byte) []byte) {
	t.Helper()

	ctx := context.Background()

	r, err := store.Get(ctx, object)
	if err != nil {
		t.Fatal(err)
	}

	data, err := io.ReadAll(r)
	r.Close() //nolint:errcheck // read-only

	if err != nil {
		t.Fatal(err)
	}

	if err := store.Delete(ctx, object); err != nil {
		t.Fatal(err)
	}

	if err := store.Put(ctx, object, bytes.NewReader(change(data))); err != nil {
		t.Fatal(err)
	}
}

// backupPlace is a destination for a test: its name on the command line, the flags and
// environment that reach it, and the store behind it.
type backupPlace struct {
	dest  string
	flags []string
	env   map[string]string
	store backup.Store
}

// dirPlace is a fresh directory.
func dirPlace(t *testing.T) backupPlace {
	t.Helper()

	dest := t.TempDir()

	return backupPlace{dest: dest, env: map[string]string{}, store: backupstore.Dir(dest)}
}

func TestBackupVerify_FailsOnEveryDamageWithOneLine(t *testing.T) {
	t.Parallel()

	verifyCatchesEveryDamage(t, dirPlace)
}

// verifyCatchesEveryDamage holds backup verify to every damage a backup may suffer in a
// destination place makes: each fails with one line, exit code 1, nothing on stdout and
// no plain snapshot left behind.
func verifyCatchesEveryDamage(t *testing.T, place func(*testing.T) backupPlace) {
	t.Helper()

	snap := etcdsnaptest.Snapshot(t, snapshotOps()...)

	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}

	other, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}

	const name = "homelab-20261129T120000Z"

	tests := []struct {
		name    string
		key     *age.X25519Identity
		damage  func(store backup.Store)
		wantErr string
	}{
		{
			name: "an intact backup passes",
			key:  id,
		},
		{
			name: "a flipped byte in the encrypted snapshot",
			key:  id,
			damage: func(store backup.Store) {
				editObject(t, store, name+backup.SnapshotSuffix, func(b []byte) []byte { b[len(b)/2] ^= 0x01; return b })
			},
			wantErr: "talops: backup " + name + ": the encrypted snapshot is damaged or truncated: failed to decrypt and authenticate payload chunk, file may be corrupted or tampered with\n",
		},
		{
			name: "a truncated encrypted snapshot",
			key:  id,
			damage: func(store backup.Store) {
				editObject(t, store, name+backup.SnapshotSuffix, func(b []byte) []byte { return b[:len(b)-1000] })
			},
			wantErr: "talops: backup " + name + ": the encrypted snapshot is damaged or truncated: failed to decrypt and authenticate payload chunk, file may be corrupted or tampered with\n",
		},
		{
			name:    "a key the backup was not encrypted to",
			key:     other,
			wantErr: "talops: backup " + name + ": none of the age identities found (SOPS_AGE_KEY, SOPS_AGE_KEY_FILE, sops' key file) is a recipient of it\n",
		},
		{
			name: "a manifest whose hash is not the snapshot's",
			key:  id,
			damage: func(store backup.Store) {
				editObject(t, store, name+backup.ManifestSuffix, func(b []byte) []byte {
					sum := sha256.Sum256(snap)

					return bytes.Replace(b, []byte(hex.EncodeToString(sum[:])), []byte(strings.Repeat("0", 64)), 1)
				})
			},
			wantErr: "talops: backup " + name + ": its snapshot's SHA-256 is not the manifest's\n",
		},
		{
			name: "a manifest whose size is not the snapshot's",
			key:  id,
			damage: func(store backup.Store) {
				editObject(t, store, name+backup.ManifestSuffix, func(b []byte) []byte {
					return bytes.Replace(b, fmt.Appendf(nil, `"size": %d`, len(snap)), fmt.Appendf(nil, `"size": %d`, len(snap)-1), 1)
				})
			},
			wantErr: fmt.Sprintf("talops: backup %s: its snapshot is %d bytes, the manifest says %d\n", name, len(snap), len(snap)-1),
		},
		{
			name: "a manifest of another backup",
			key:  id,
			damage: func(store backup.Store) {
				editObject(t, store, name+backup.ManifestSuffix, func(b []byte) []byte {
					return bytes.ReplaceAll(b, []byte("20261129T120000Z"), []byte("20261128T120000Z"))
				})
			},
			wantErr: "talops: backup " + name + ": its manifest is that of homelab-20261128T120000Z (homelab-20261128T120000Z.snapshot.age)\n",
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			p := place(t)
			putBackup(t, p.store, "homelab", time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC), snap, id.Recipient())

			if tt.damage != nil {
				tt.damage(p.store)
			}

			env := maps.Clone(p.env)
			env["SOPS_AGE_KEY"] = tt.key.String()

			h := newHarness(t, nil, env)
			spool := withBackups(t, h)

			err := h.run(append(append([]string{"backup", "verify", "--from", p.dest}, p.flags...), name)...)

			if tt.wantErr == "" {
				if err != nil || !strings.HasPrefix(h.stdout.String(), "Backup "+name+" of homelab") {
					t.Fatalf("verify: %v\n%s%s", err, h.stdout.String(), h.stderr.String())
				}
			} else {
				if cli.ExitCode(err) != cli.ExitFailure {
					t.Errorf("exit code %d, want %d", cli.ExitCode(err), cli.ExitFailure)
				}

				if got := h.stderr.String(); got != tt.wantErr {
					t.Errorf("stderr:\n%s\nwant:\n%s", got, tt.wantErr)
				}

				if h.stdout.Len() != 0 {
					t.Errorf("a damaged backup printed %q", h.stdout.String())
				}
			}

			if left, _ := os.ReadDir(spool); len(left) != 0 {
				t.Errorf("a plain snapshot was left behind: %v", left)
			}
		})
	}
}

func TestBackupList_ListsTheBackupsOldestFirstAndSaysWhatCannotBeRead(t *testing.T) {
	t.Parallel()

	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}

	dest := t.TempDir()
	writeBackup(t, dest, etcdsnaptest.Snapshot(t, snapshotOps()...), id.Recipient())

	if err := os.WriteFile(filepath.Join(dest, "homelab-20261128T120000Z.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}

	// A snapshot whose manifest was never written is no backup.
	if err := os.WriteFile(filepath.Join(dest, "homelab-20261130T120000Z.snapshot.age"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}

	h := newHarness(t, nil, nil)
	withBackups(t, h)

	if err := h.run("backup", "list", "--from", dest); err != nil {
		t.Fatalf("list: %v\n%s", err, h.stderr.String())
	}

	want := "Backups in " + dest + ", oldest first:\n" +
		"  homelab-20261128T120000Z  unreadable: backup homelab-20261128T120000Z: not a backup manifest: name, snapshot, cluster, time and sha256 are required\n" +
		"  homelab-20261129T120000Z  2026-11-29 12:00:00 UTC  revision 6  24.0 KiB  Talos ?  Kubernetes ?\n"
	if got := h.stdout.String(); got != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", got, want)
	}
}
