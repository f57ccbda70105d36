package cli_test

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"filippo.io/age"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/etcdsnap/etcdsnaptest"
	"github.com/talops/talops/internal/talos/talostest"
)

// recoverLab is the homelab after its control plane was lost: k8s-master boots into
// maintenance mode with an empty etcd, the workers run on; a backup of the cluster, taken
// two hours before the harness's clock, waits in dest.
type recoverLab struct {
	*applyLab
	dest string
	snap []byte
	id   *age.X25519Identity
	env  map[string]string
}

func newRecoverLab(t *testing.T, backupOf string) *recoverLab {
	t.Helper()

	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}

	env := map[string]string{"SOPS_AGE_KEY": id.String()}
	etcd := &talostest.Cluster{}

	l := newApplyLab(t, env, func(n *talostest.Node) {
		if n.Name == "k8s-master" {
			n.Config, n.Cluster, n.Address = nil, etcd, "10.0.20.100"
		}
	})
	withBackups(t, l.h)

	r := &recoverLab{applyLab: l, dest: t.TempDir(), snap: etcdsnaptest.Snapshot(t, snapshotOps()...), id: id, env: env}
	writeBackupOf(t, r.dest, backupOf, time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC), r.snap, id.Recipient())

	return r
}

func (r *recoverLab) recover(args ...string) error {
	r.h.stdout.Reset()
	r.h.stderr.Reset()

	return r.h.run(append([]string{"recover", "--dir", "examples/homelab", "--from", r.dest}, args...)...)
}

// changes are the journal's entries of calls that change a node.
func (r *recoverLab) changes() []string {
	var out []string

	for _, e := range r.journal.Entries() {
		if !strings.Contains(e, " EtcdSnapshot") {
			out = append(out, e)
		}
	}

	return out
}

// The whole cluster comes back from the backup: the control plane gets its config over the
// maintenance API, the snapshot uploaded, etcd bootstrapped from it with its hash checked,
// in that order; the workers, which run on, are left as they are.
func TestRecover_RestoresTheBackupOntoTheControlPlaneInMaintenance(t *testing.T) {
	r := newRecoverLab(t, "homelab")

	if err := r.recover("--latest", "--yes"); err != nil {
		t.Fatalf("recover: %v\n%s", err, r.h.stderr.String())
	}

	want := []string{
		"k8s-master ApplyConfiguration AUTO (maintenance)",
		"k8s-master EtcdRecover " + strconv.Itoa(len(r.snap)) + " bytes",
		"k8s-master Bootstrap (recover)",
	}
	if got := r.changes(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	if !bytes.Equal(r.nodes["k8s-master"].Recovered(), r.snap) {
		t.Error("etcd was not started from the backup's snapshot")
	}

	out := r.h.stdout.String()
	for _, line := range []string{
		"Recovery of cluster homelab from backup homelab-20261129T100000Z (" + r.dest + ")\n",
		"  etcd at revision 6, taken 2026-11-29 10:00:00 UTC from k8s-master, 2h0m0s old: what was written since is lost\n",
		"1. k8s-master (controlplane, 10.0.20.100): in maintenance mode\n     apply its config → upload the snapshot → bootstrap etcd from it → wait until healthy\n",
		"Plan: 1 node to recover, 4 left as they are\n",
		"Recovered in ",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("stdout lacks %q:\n%s", line, out)
		}
	}

	for _, step := range []string{"recover: k8s-master: upload the snapshot\n", "recover: backup homelab-20261129T100000Z verified: revision 6, 3 keys, etcd reads it\n"} {
		if !strings.Contains(r.h.stderr.String(), step) {
			t.Errorf("progress lacks %q:\n%s", step, r.h.stderr.String())
		}
	}

	if strings.Contains(out+r.h.stderr.String(), backupSecret) || strings.Contains(out+r.h.stderr.String(), r.id.String()) {
		t.Error("a secret was printed")
	}

	// Run again, it has nothing left to do: etcd has quorum.
	var refused *app.RefusedRecoveryError
	if err := r.recover("--latest", "--yes"); !errors.As(err, &refused) {
		t.Errorf("a second recover: %v, want it refused", err)
	}
}

// A recovery that stopped after the upload is resumed by running it again: the node,
// configured already, is not sent its config twice; the snapshot goes up again and etcd
// starts from it.
func TestRecover_ARunThatStoppedPartWayIsResumedByRunningItAgain(t *testing.T) {
	r := newRecoverLab(t, "homelab")
	r.nodes["k8s-master"].FailNext("Bootstrap")

	if err := r.recover("--latest", "--yes"); err == nil || !strings.Contains(err.Error(), "recover k8s-master: bootstrap etcd from it: ") {
		t.Fatalf("the first run: %v, want it stopped at the bootstrap", err)
	}

	if r.nodes["k8s-master"].Recovered() != nil {
		t.Fatal("etcd started although the bootstrap failed")
	}

	if err := r.recover("--latest", "--yes"); err != nil {
		t.Fatalf("the second run: %v\n%s", err, r.h.stderr.String())
	}

	if !strings.Contains(r.h.stdout.String(), "1. k8s-master (controlplane, 10.0.20.100): runs its config; etcd: etcd members: ") ||
		!strings.Contains(r.h.stdout.String(), "     upload the snapshot → bootstrap etcd from it → wait until healthy\n") {
		t.Errorf("the second run's plan:\n%s", r.h.stdout.String())
	}

	n := strconv.Itoa(len(r.snap))
	want := []string{
		"k8s-master ApplyConfiguration AUTO (maintenance)", "k8s-master EtcdRecover " + n + " bytes",
		"k8s-master EtcdRecover " + n + " bytes", "k8s-master Bootstrap (recover)",
	}
	if got := r.changes(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	if !bytes.Equal(r.nodes["k8s-master"].Recovered(), r.snap) {
		t.Error("etcd was not started from the backup's snapshot")
	}
}

// What refuses a recovery changes nothing: etcd that keeps quorum, a backup of another
// cluster, a key the backup was not encrypted to.
func TestRecover_RefusedChangesNothing(t *testing.T) {
	other, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name  string
		setup func(t *testing.T) (*applyLab, string)
		want  string
	}{
		{
			name: "etcd keeps quorum",
			setup: func(t *testing.T) (*applyLab, string) {
				l := newApplyLab(t, map[string]string{"SOPS_AGE_KEY": other.String()}, nil)
				withBackups(t, l.h)
				dest := t.TempDir()
				writeBackup(t, dest, etcdsnaptest.Snapshot(t, snapshotOps()...), other.Recipient())

				return l, dest
			},
			want: "recover refused, nothing was changed: etcd has quorum: every control plane's member is healthy (k8s-master); a lost control plane is brought back with --node NAME",
		},
		{
			name: "a backup of another cluster",
			setup: func(t *testing.T) (*applyLab, string) {
				r := newRecoverLab(t, "staging")

				return r.applyLab, r.dest
			},
			want: "backup staging-20261129T100000Z: it is a backup of another cluster: staging, not homelab (talops.yaml's cluster.name)",
		},
		{
			name: "a key the backup was not encrypted to",
			setup: func(t *testing.T) (*applyLab, string) {
				r := newRecoverLab(t, "homelab")
				r.env["SOPS_AGE_KEY"] = other.String()

				return r.applyLab, r.dest
			},
			want: "backup homelab-20261129T100000Z: none of the age identities found (SOPS_AGE_KEY, SOPS_AGE_KEY_FILE, sops' key file) is a recipient of it",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, dest := tc.setup(t)

			err := l.h.run("recover", "--dir", "examples/homelab", "--from", dest, "--yes")
			if err == nil || err.Error() != tc.want || cli.ExitCode(err) != cli.ExitFailure {
				t.Errorf("recover: %v\nwant: %s", err, tc.want)
			}

			for _, e := range l.journal.Entries() {
				if !strings.Contains(e, "EtcdSnapshot") {
					t.Errorf("a node was changed: %s", e)
				}
			}
		})
	}
}

// Without --yes and without a terminal to ask, the plan is shown and nothing changes.
func TestRecover_WithoutYesAndATerminalOnlyShowsThePlan(t *testing.T) {
	r := newRecoverLab(t, "homelab")

	if err := r.recover("--format", "json"); err != nil {
		t.Fatal(err)
	}

	if got := r.changes(); len(got) != 0 {
		t.Errorf("nodes were changed: %v", got)
	}

	if out := r.h.stdout.String(); !strings.Contains(out, `"ran": false`) || !strings.Contains(out, `"ageSeconds": 7200`) {
		t.Errorf("stdout:\n%s", out)
	}
}

// --node brings back a control plane whose member is lost, never one that is healthy, and
// only a control plane.
func TestRecover_NodeRefusesAHealthyControlPlaneAndAWorker(t *testing.T) {
	l := newApplyLab(t, nil, nil)

	for _, tc := range []struct{ node, want string }{
		{"k8s-master", "recover refused, nothing was changed: k8s-master's etcd member is healthy: nothing to recover"},
		{"k8s-node1", "--node k8s-node1: a worker, not a control plane: apply brings a worker back"},
		{"nope", "--node nope: talops.yaml has no such node"},
	} {
		if err := l.h.run("recover", "--dir", "examples/homelab", "--node", tc.node, "--yes"); err == nil || err.Error() != tc.want {
			t.Errorf("--node %s: %v, want %s", tc.node, err, tc.want)
		}
	}

	if got := l.journal.Entries(); len(got) != 0 {
		t.Errorf("nodes were changed: %v", got)
	}
}

// On a terminal, recover shows the plan and asks; only "yes" goes on.
func TestRecover_OnATerminalOnlyYesGoesOn(t *testing.T) {
	for _, tc := range []struct {
		answer  string
		changed bool
	}{
		{"no", false},
		{"yes", true},
	} {
		t.Run(tc.answer, func(t *testing.T) {
			r := newRecoverLab(t, "homelab")

			var questions []string

			r.h.deps.Prompt = func(q string) (string, error) {
				questions = append(questions, q)

				return tc.answer + "\n", nil
			}

			err := r.recover()

			if len(questions) != 1 || questions[0] != `Recover homelab as planned? Only "yes" goes on: ` {
				t.Errorf("asked %q", questions)
			}

			if !strings.Contains(r.h.stderr.String(), "1. k8s-master (controlplane, 10.0.20.100): in maintenance mode\n") {
				t.Errorf("the plan was not shown before the question:\n%s", r.h.stderr.String())
			}

			if changed := len(r.changes()) > 0; changed != tc.changed || (err == nil) != tc.changed {
				t.Errorf("answered %q: changed %v, error %v", tc.answer, changed, err)
			}
		})
	}
}

// Once the cluster is back, --kubeconfig-out writes its admin kubeconfig (mode 0600, as the
// harness checks of every kubeconfig it is given); a run that only shows the plan writes none.
func TestRecover_WritesTheAdminKubeconfigOnceTheClusterIsBack(t *testing.T) {
	r := newRecoverLab(t, "homelab")

	if err := r.recover("--latest", "--kubeconfig-out", "admin.yaml"); err != nil {
		t.Fatalf("recover without --yes: %v", err)
	}

	if _, ok := r.h.written["admin.yaml"]; ok {
		t.Error("a recovery only shown wrote the kubeconfig")
	}

	if err := r.recover("--latest", "--yes", "--kubeconfig-out", "admin.yaml"); err != nil {
		t.Fatalf("recover: %v\n%s", err, r.h.stderr.String())
	}

	if kc := r.h.written["admin.yaml"]; !strings.Contains(string(kc), "kind: Config") {
		t.Errorf("admin.yaml is not a kubeconfig:\n%s", kc)
	}

	if !strings.Contains(r.h.stderr.String(), "talops: ") || strings.Contains(r.h.stdout.String(), "kind: Config") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", r.h.stdout.String(), r.h.stderr.String())
	}
}
