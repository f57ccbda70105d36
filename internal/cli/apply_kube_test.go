package cli_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"github.com/talops/talops/internal/applied"
	"github.com/talops/talops/internal/health"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/kube"
)

// labKubeKey is the client key of the lab's kubeconfig: it must never be printed.
const labKubeKey = "MHcCAQEEIKubeLabClientKeyMustNeverBePrintedAnywhere00"

// labKube is a narrow fake of the lab's Kubernetes API: each call is recorded with what
// the Talos nodes had been asked by then; a drain says the client key in its progress
// (the masker must catch it).
type labKube struct {
	l      *applyLab
	mu     sync.Mutex
	events []string
	locked error
	// objects answers health checks (nil: no object exists).
	objects func(health.Check) ([]health.Object, error)
	// progress is the rollout's progress the apply kept (nil: none yet).
	progress *applied.Progress
}

func (k *labKube) add(format string, args ...any) {
	k.mu.Lock()
	defer k.mu.Unlock()

	k.events = append(k.events, fmt.Sprintf(format, args...))
}

func (k *labKube) Drain(_ context.Context, node string, timeout time.Duration, progress func(string)) error {
	k.add("drain %s within %s, after %d node calls", node, timeout, len(k.l.journal.Entries()))
	progress("evicting 2 pods as " + labKubeKey)

	return nil
}

func (k *labKube) Uncordon(_ context.Context, node string) error {
	k.add("uncordon %s after %d boots", node, k.l.nodes[node].Boots())

	return nil
}

func (k *labKube) DeleteNode(_ context.Context, node string) error {
	k.add("delete %s", node)

	return nil
}

func (k *labKube) Nodes(context.Context) ([]string, error) { return labNodes, nil }

// InternalIPs has nothing to say: every lab node says its own name.
func (k *labKube) InternalIPs(context.Context) (map[string][]string, error) { return nil, nil }

// HealthObjects reads the cluster's objects through objects (nil: there are none).
func (k *labKube) HealthObjects(_ context.Context, c health.Check) ([]health.Object, error) {
	k.add("health %s after %d node calls", c.Name, len(k.l.journal.Entries()))

	if k.objects == nil {
		return nil, nil
	}

	return k.objects(c)
}

// ReadProgress gives what the last WriteProgress kept.
func (k *labKube) ReadProgress(context.Context, string) (*applied.Progress, error) {
	k.mu.Lock()
	defer k.mu.Unlock()

	return k.progress, nil
}

func (k *labKube) WriteProgress(_ context.Context, _ string, p applied.Progress) error {
	k.mu.Lock()
	defer k.mu.Unlock()

	k.progress = &p

	return nil
}

func (k *labKube) Lock(_ context.Context, cluster, holder string, _ func(error)) (func(context.Context) error, error) {
	k.add("lock %s for %s", cluster, withoutNonce(holder))

	if k.locked != nil {
		return nil, k.locked
	}

	return func(context.Context) error {
		k.add("release %s after %d node calls", cluster, len(k.l.journal.Entries()))

		return nil
	}, nil
}

// nonceRe is a lock holder ending in its run's nonce.
var nonceRe = regexp.MustCompile(`^(.*) #[0-9a-f]{8}$`)

// withoutNonce is holder without the nonce every holder must end in (a holder without one
// is recorded as such, and fails the comparison).
func withoutNonce(holder string) string {
	if m := nonceRe.FindStringSubmatch(holder); m != nil {
		return m[1]
	}

	return holder + " (no nonce)"
}

// withKube gives the lab a Kubernetes API, reached with the kubeconfig file it returns.
func withKube(t *testing.T, l *applyLab, k *labKube) string {
	t.Helper()

	kubeconfig := "apiVersion: v1\nkind: Config\nusers:\n- name: admin@homelab\n  user:\n    client-key-data: " + base64.StdEncoding.EncodeToString([]byte(labKubeKey)) + "\n"

	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}

	l.h.deps.Hostname = func() (string, error) { return "build-host", nil }
	l.h.deps.Kube = func(data []byte) (app.Kube, error) {
		if string(data) != kubeconfig {
			t.Errorf("the client was made from %q", data)
		}

		return k, nil
	}

	return path
}

// addMotd gives k8s-node4 a change that needs a reboot (machine.files, up to Talos 1.13).
func addMotd(l *applyLab) {
	l.files["nodes/k8s-node4.yaml"] = append(l.files["nodes/k8s-node4.yaml"], []byte("---\nmachine:\n  files:\n    - path: /var/etc/motd\n      permissions: 0o644\n      op: create\n      content: hello\n")...)
}

func TestApply_ARebootingNodeIsDrainedFirstAndUncordonedAfterItsGateUnderTheApplyLock(t *testing.T) {
	l := newApplyLab(t, map[string]string{"USER": "alice"}, nil)
	addMotd(l)

	k := &labKube{l: l}
	kubeconfig := withKube(t, l, k)

	if err := l.apply("--kubeconfig", kubeconfig, "--drain-timeout", "2m", "--format", "json"); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	want := []string{
		"lock homelab for alice@build-host",
		"drain k8s-node4 within 2m0s, after 0 node calls",
		"uncordon k8s-node4 after 1 boots",
		"release homelab after 1 node calls",
	}
	if !slices.Equal(k.events, want) {
		t.Errorf("Kubernetes calls:\n%s\nwant:\n%s", strings.Join(k.events, "\n"), strings.Join(want, "\n"))
	}

	if n := l.report(t).Nodes[4]; n.Outcome != "applied" || n.Detail != "applied, rebooted, healthy" {
		t.Errorf("k8s-node4: %+v", n)
	}

	stderr := l.h.stderr.String()
	for _, line := range []string{"[5/5] k8s-node4: draining (up to 2m0s)\n", "[5/5] k8s-node4: evicting 2 pods as ", "[5/5] k8s-node4: uncordoned\n"} {
		if !strings.Contains(stderr, line) {
			t.Errorf("stderr lacks %q:\n%s", line, stderr)
		}
	}

	if strings.Contains(stderr+l.h.stdout.String(), labKubeKey) {
		t.Errorf("the kubeconfig's key was printed:\n%s", stderr)
	}
}

func TestApply_NoDrainRebootsWithoutADrainButTakesTheLock(t *testing.T) {
	l := newApplyLab(t, map[string]string{"USER": "alice"}, nil)
	addMotd(l)

	k := &labKube{l: l}

	if err := l.apply("--kubeconfig", withKube(t, l, k), "--no-drain"); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	want := []string{"lock homelab for alice@build-host", "release homelab after 1 node calls"}
	if !slices.Equal(k.events, want) || l.nodes["k8s-node4"].Boots() != 1 {
		t.Errorf("Kubernetes calls %q, boots %d", k.events, l.nodes["k8s-node4"].Boots())
	}
}

func TestApply_AnotherApplyHoldingTheLockRefusesNamingItWithNoNodeTouched(t *testing.T) {
	l := newApplyLab(t, nil, nil)
	addMotd(l)

	since := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	k := &labKube{l: l, locked: &kube.LockedError{Cluster: "homelab", Holder: "github-actions lab/infra run 42 (alice)", Since: since, Expires: since.Add(time.Minute)}}

	refused(t, l, "talops: another apply of this cluster is running:\ntalops: cluster homelab is being applied by github-actions lab/infra run 42 (alice) since 2026-12-01T12:00:00Z", "--kubeconfig", withKube(t, l, k))
}

func TestApply_ADryRunTakesNoLockAndDrainsNothing(t *testing.T) {
	l := newApplyLab(t, nil, nil)
	addMotd(l)

	k := &labKube{l: l}

	if err := l.apply("--kubeconfig", withKube(t, l, k), "--dry-run"); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	if len(k.events) != 0 {
		t.Errorf("Kubernetes calls in a dry run: %q", k.events)
	}
}
