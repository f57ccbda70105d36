package cli_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"filippo.io/age"

	"github.com/talops/talops/internal/talos/talostest"
)

// Before the first control plane changes, apply streams an etcd snapshot from it and saves
// it encrypted to the recipients, once; the report says where; only the identity opens it.
func TestApply_EtcdSnapshotBeforeTheFirstControlPlaneChangeIsAgeEncrypted(t *testing.T) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}

	l := newApplyLab(t, nil, nil)
	addSysctl(t, l.files)

	if err := l.apply("--format", "json", "--etcd-backup", "backups", "--etcd-backup-recipient", id.Recipient().String()); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	want := filepath.Join("backups", "homelab-20261129T120000Z.etcd-snapshot.age")

	sealed, ok := l.h.written[want]
	if !ok {
		t.Fatalf("no snapshot at %s; wrote %v", want, keys(l.h.written))
	}

	if bytes.Contains(sealed, talostest.SnapshotBytes("k8s-master")) {
		t.Fatal("the snapshot was written in the clear")
	}

	r, err := age.Decrypt(bytes.NewReader(sealed), id)
	if err != nil {
		t.Fatal(err)
	}

	if plain, _ := io.ReadAll(r); !bytes.Equal(plain, talostest.SnapshotBytes("k8s-master")) {
		t.Errorf("decrypted snapshot %q", plain)
	}

	if !strings.Contains(l.h.stdout.String(), `"etcdSnapshot": "`+want+`"`) {
		t.Errorf("the report does not say where the snapshot is:\n%s", l.h.stdout.String())
	}

	if got := strings.Count(strings.Join(l.journal.Entries(), "\n"), "EtcdSnapshot"); got != 1 {
		t.Errorf("%d snapshots taken, want 1: %v", got, l.journal.Entries())
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}

	return out
}

func TestApply_AFailedEtcdSnapshotStopsBeforeAnyControlPlaneChanges(t *testing.T) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}

	l := newApplyLab(t, nil, func(n *talostest.Node) {
		if n.Name == "k8s-master" {
			n.Fail = []string{"EtcdSnapshot"}
		}
	})
	addSysctl(t, l.files)

	_ = l.apply("--format", "json", "--etcd-backup", "backups", "--etcd-backup-recipient", id.Recipient().String())

	r := l.report(t)
	if r.Nodes[0].Outcome != "failed" || !strings.HasPrefix(r.Nodes[0].Detail, "etcd snapshot before the first control-plane change: ") {
		t.Errorf("k8s-master: %+v", r.Nodes[0])
	}

	if got := l.touched(); len(got) != 0 {
		t.Errorf("touched %v after a failed snapshot", got)
	}
}

// A talops-etcd-backups link in the merged commit would send the snapshot (and the
// workflow's upload of the directory) wherever it points: apply refuses before any node.
func TestApply_EtcdSnapshotDirectoryThatIsALinkIsRefusedBeforeAnyNode(t *testing.T) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}

	l := newApplyLab(t, nil, nil)
	addSysctl(t, l.files)
	l.h.deps.Lstat = os.Lstat

	root := t.TempDir()
	elsewhere := filepath.Join(root, "elsewhere")
	link := filepath.Join(root, "talops-etcd-backups")

	if err := os.Mkdir(elsewhere, 0o700); err != nil {
		t.Fatal(err)
	}

	if err := os.Symlink(elsewhere, link); err != nil {
		t.Fatal(err)
	}

	refused(t, l, "talops: the etcd snapshot's directory:\ntalops: "+link+" is a symbolic link: talops does not write the etcd snapshot through it (remove it, or name another directory for the snapshot)\n",
		"--etcd-backup", link, "--etcd-backup-recipient", id.Recipient().String())

	if len(l.h.written) != 0 {
		t.Errorf("wrote %v", keys(l.h.written))
	}
}
