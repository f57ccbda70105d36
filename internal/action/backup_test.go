package action_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"filippo.io/age"

	"github.com/talops/talops/internal/action"
	"github.com/talops/talops/internal/backup"
	"github.com/talops/talops/internal/backupstore"
	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/etcdsnap"
	"github.com/talops/talops/internal/etcdsnap/etcdsnaptest"
	"github.com/talops/talops/internal/testlab"
)

// backupRunner is a runner of the backup action over a directory holding one backup of
// homelab, encrypted to the identity it returns.
func backupRunner(t *testing.T, inputs map[string]string) (*runner, string, *age.X25519Identity) {
	t.Helper()

	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}

	dest := t.TempDir()
	snap := etcdsnaptest.Snapshot(t, etcdsnaptest.Put("/registry/configmaps/default/a", "a"))
	at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	name := backup.Name("homelab", at)
	sum := sha256.Sum256(snap)

	var sealed bytes.Buffer

	w, err := age.Encrypt(&sealed, id.Recipient())
	if err != nil {
		t.Fatal(err)
	}

	w.Write(snap) //nolint:errcheck // a buffer
	w.Close()     //nolint:errcheck // a buffer

	m := backup.Manifest{Name: name, Snapshot: name + backup.SnapshotSuffix, Cluster: "homelab", Time: at, Node: "k8s-master", Revision: 2, Size: int64(len(snap)), SHA256: hex.EncodeToString(sum[:])}

	data, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}

	for file, content := range map[string][]byte{m.Snapshot: sealed.Bytes(), name + backup.ManifestSuffix: data} {
		if err := os.WriteFile(filepath.Join(dest, file), content, 0o600); err != nil {
			t.Fatal(err)
		}
	}

	in := map[string]string{"dir": "examples/homelab", "from": dest, "sops-age-key": id.String()}
	for k, v := range inputs {
		in[k] = v
	}

	r := newRunner(t, testlab.Files(t), in)
	spool := t.TempDir()
	r.deps.BackupStore = backupstore.OpenWith
	r.deps.ReadSnapshot = func(rd io.Reader) (backup.Contents, error) { return etcdsnap.Read(rd, spool) }

	return r, dest, id
}

func TestBackupAction_VerifyLatestSetsTheOutputsAndSummary(t *testing.T) {
	t.Parallel()

	r, _, _ := backupRunner(t, map[string]string{"verify": "latest"})

	if err := action.Run(context.Background(), r.deps, []string{"backup"}); err != nil {
		t.Fatalf("backup verify: %v\n%s", err, r.stdout.String())
	}

	out := r.file(t, "GITHUB_OUTPUT")
	for _, want := range []string{"backup<<", "\nhomelab-20261129T120000Z\n", "revision<<", "\n2\n", "deleted<<", "\n[]\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("outputs lack %q:\n%s", want, out)
		}
	}

	if summary := r.file(t, "GITHUB_STEP_SUMMARY"); !strings.Contains(summary, "Backup homelab-20261129T120000Z of homelab (2026-11-29 12:00:00 UTC) verified") {
		t.Errorf("summary:\n%s", summary)
	}
}

// The scheduled workflow's weekly drill fails red when the newest backup cannot be restored.
func TestBackupAction_VerifyFailsOnADamagedBackup(t *testing.T) {
	t.Parallel()

	r, dest, _ := backupRunner(t, map[string]string{"verify": "homelab-20261129T120000Z"})

	path := filepath.Join(dest, "homelab-20261129T120000Z"+backup.SnapshotSuffix)

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	if err := os.WriteFile(path, data[:len(data)-100], 0o600); err != nil {
		t.Fatal(err)
	}

	err = action.Run(context.Background(), r.deps, []string{"backup"})
	if cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit code %d (%v)", cli.ExitCode(err), err)
	}

	if !strings.Contains(r.stdout.String(), "::error::backup homelab-20261129T120000Z: the encrypted snapshot is damaged or truncated") {
		t.Errorf("stdout:\n%s", r.stdout.String())
	}
}

func TestBackupAction_KeepMustBeANumber(t *testing.T) {
	t.Parallel()

	r, _, _ := backupRunner(t, map[string]string{"keep": "all"})

	err := action.Run(context.Background(), r.deps, []string{"backup"})
	if cli.ExitCode(err) != cli.ExitFailure || !strings.Contains(r.stdout.String(), `input keep must be a number of backups, 1 or more, got "all"`) {
		t.Errorf("exit code %d (%v)\n%s", cli.ExitCode(err), err, r.stdout.String())
	}
}
