package cli_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"filippo.io/age"

	"github.com/talops/talops/internal/backup"
	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/etcdsnap/etcdsnaptest"
	"github.com/talops/talops/internal/talos/talostest"
)

func TestBackup_RetentionDeletesThisClustersOldBackupsOnceTheNewOneIsVerified(t *testing.T) {
	retentionDeletesOnlyOldBackups(t, dirPlace(t))
}

// retentionDeletesOnlyOldBackups takes a backup with --keep 2 --keep-within 5d into a
// place holding older backups of the cluster and of another one: the new backup is
// verified, then only this cluster's backups neither rule keeps are deleted.
func retentionDeletesOnlyOldBackups(t *testing.T, p backupPlace) {
	t.Helper()

	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}

	ctx := context.Background()
	snap := etcdsnaptest.Snapshot(t, snapshotOps()...)
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

	old := []string{
		putBackup(t, p.store, "homelab", now.AddDate(0, 0, -40), snap, id.Recipient()),
		putBackup(t, p.store, "homelab", now.AddDate(0, 0, -10), snap, id.Recipient()),
		putBackup(t, p.store, "homelab", now.AddDate(0, 0, -4), snap, id.Recipient()),
		putBackup(t, p.store, "homelab", now.AddDate(0, 0, -1), snap, id.Recipient()),
	}
	another := putBackup(t, p.store, "homelab-b", now.AddDate(0, 0, -90), snap, id.Recipient())

	env := maps.Clone(p.env)
	env["SOPS_AGE_KEY"] = id.String()

	l := newApplyLab(t, env, func(n *talostest.Node) { n.Snapshot = snap })
	withBackups(t, l.h)

	args := append([]string{"backup", "--dir", "examples/homelab", "--to", p.dest, "--recipient", id.Recipient().String(), "--keep", "2", "--keep-within", "5d"}, p.flags...)
	if err := l.h.run(args...); err != nil {
		t.Fatalf("backup: %v\n%s", err, l.h.stderr.String())
	}

	name := backup.Name("homelab", now)

	wantTail := "Verified " + name + ": decrypted, size and SHA-256 as the manifest says, etcd reads it\n" +
		"Retention: deleted 2 older backup(s) of homelab:\n" +
		"  " + old[0] + "\n" +
		"  " + old[1] + "\n"
	if got := l.h.stdout.String(); !strings.HasPrefix(got, "Backup "+name+" written to "+p.dest+":") || !strings.HasSuffix(got, wantTail) {
		t.Errorf("stdout:\n%s\nwant it to end with:\n%s", got, wantTail)
	}

	objects, err := p.store.List(ctx)
	if err != nil {
		t.Fatal(err)
	}

	slices.Sort(objects)

	var want []string
	for _, n := range []string{another, old[2], old[3], name} {
		want = append(want, n+backup.ManifestSuffix, n+backup.SnapshotSuffix)
	}

	slices.Sort(want)

	if !slices.Equal(objects, want) {
		t.Errorf("the destination holds\n%v\nwant\n%v", objects, want)
	}
}

func TestBackup_RetentionWithoutTheKeyToVerifyTakesNothing(t *testing.T) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}

	p := dirPlace(t)
	old := putBackup(t, p.store, "homelab", time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), etcdsnaptest.Snapshot(t, snapshotOps()...), id.Recipient())

	l := newApplyLab(t, nil, nil)
	withBackups(t, l.h)

	err = l.h.run("backup", "--dir", "examples/homelab", "--to", p.dest, "--recipient", id.Recipient().String(), "--keep", "1")
	if cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("backup: %v", err)
	}

	want := "talops: retention deletes old backups only once the new one is verified: no age identity to decrypt the backup with: set SOPS_AGE_KEY_FILE or SOPS_AGE_KEY, or keep the key in sops' default key file\n"
	if got := l.h.stderr.String(); got != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
	}

	if strings.Contains(strings.Join(l.journal.Entries(), "\n"), "EtcdSnapshot") {
		t.Error("a snapshot was taken")
	}

	if objects, _ := p.store.List(context.Background()); len(objects) != 2 || !slices.Contains(objects, old+backup.ManifestSuffix) {
		t.Errorf("the destination holds %v", objects)
	}
}

// talops.yaml's backup: section names the destination and the retention of backup, list
// and verify, and where apply's snapshot goes: a backup like any other.
func TestBackupSection_IsWhereBackupListVerifyAndApplysSnapshotGo(t *testing.T) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}

	snap := etcdsnaptest.Snapshot(t, snapshotOps()...)
	p := dirPlace(t)
	old := putBackup(t, p.store, "homelab", time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), snap, id.Recipient())

	l := newApplyLab(t, map[string]string{"SOPS_AGE_KEY": id.String()}, func(n *talostest.Node) { n.Snapshot = snap })
	withBackups(t, l.h)
	addSysctl(t, l.files)

	l.files["talops.yaml"] = append(l.files["talops.yaml"], []byte("backup:\n  to: "+p.dest+"\n  keep: 1\n")...)

	if err := l.apply("--yes", "--etcd-backup-recipient", id.Recipient().String()); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	name := "homelab-20261129T120000Z"
	if !strings.Contains(l.h.stdout.String(), "etcd snapshot before the first control-plane change: "+p.dest+" as backup "+name+"\n") {
		t.Errorf("apply does not say where the snapshot went:\n%s", l.h.stdout.String())
	}

	l.h.stdout.Reset()

	if err := l.h.run("backup", "list", "--dir", "examples/homelab"); err != nil {
		t.Fatalf("list: %v\n%s", err, l.h.stderr.String())
	}

	want := "Backups in " + p.dest + ", oldest first:\n" +
		"  " + old + "  2026-10-01 00:00:00 UTC  revision 6  24.0 KiB  Talos ?  Kubernetes ?\n" +
		"  " + name + "  2026-11-29 12:00:00 UTC  revision 6  24.0 KiB  Talos v1.13.9  Kubernetes "
	if got := l.h.stdout.String(); !strings.HasPrefix(got, want) {
		t.Errorf("list:\n%s\nwant:\n%s…", got, want)
	}

	l.h.stdout.Reset()

	if err := l.h.run("backup", "verify", "--dir", "examples/homelab", "--latest"); err != nil {
		t.Fatalf("verify: %v\n%s", err, l.h.stderr.String())
	}

	if !strings.HasPrefix(l.h.stdout.String(), "Backup "+name+" of homelab (2026-11-29 12:00:00 UTC) verified") {
		t.Errorf("verify:\n%s", l.h.stdout.String())
	}

	// backup writes there too, an hour later, and the section's keep: 1 lets every older
	// backup go once the new one is verified.
	l.h.stdout.Reset()
	l.h.deps.Now = func() time.Time { return time.Date(2026, 11, 29, 13, 0, 0, 0, time.UTC) }

	if err := l.h.run("backup", "--dir", "examples/homelab", "--recipient", id.Recipient().String()); err != nil {
		t.Fatalf("backup: %v\n%s", err, l.h.stderr.String())
	}

	if got, want := l.h.stdout.String(), "Retention: deleted 2 older backup(s) of homelab:\n  "+old+"\n  "+name+"\n"; !strings.HasSuffix(got, want) {
		t.Errorf("backup:\n%s\nwant it to end with:\n%s", got, want)
	}

	objects, _ := p.store.List(context.Background())
	slices.Sort(objects)

	if want := []string{"homelab-20261129T130000Z.json", "homelab-20261129T130000Z.snapshot.age"}; !slices.Equal(objects, want) {
		t.Errorf("the destination holds %v, want %v", objects, want)
	}
}

// A new backup the key at hand cannot open fails its drill: the retention deletes nothing,
// and the run fails, though the new backup is there.
func TestBackup_RetentionDeletesNothingWhenTheNewBackupFailsItsDrill(t *testing.T) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}

	other, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}

	snap := etcdsnaptest.Snapshot(t, snapshotOps()...)
	p := dirPlace(t)
	old := putBackup(t, p.store, "homelab", time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), snap, id.Recipient())

	l := newApplyLab(t, map[string]string{"SOPS_AGE_KEY": id.String()}, func(n *talostest.Node) { n.Snapshot = snap })
	withBackups(t, l.h)

	err = l.h.run("backup", "--dir", "examples/homelab", "--to", p.dest, "--recipient", other.Recipient().String(), "--keep", "1")
	if cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("backup: %v", err)
	}

	want := "talops: the new backup fails its drill, so no old backup was deleted: backup homelab-20261129T120000Z: none of the age identities found (SOPS_AGE_KEY, SOPS_AGE_KEY_FILE, sops' key file) is a recipient of it\n"
	if got := l.h.stderr.String(); got != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
	}

	objects, _ := p.store.List(context.Background())
	if !slices.Contains(objects, old+backup.ManifestSuffix) || !slices.Contains(objects, old+backup.SnapshotSuffix) || len(objects) != 4 {
		t.Errorf("the destination holds %v", objects)
	}
}
