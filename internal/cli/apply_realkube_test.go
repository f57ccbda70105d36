//go:build realkube

package cli_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/kube"
	"github.com/talops/talops/internal/kube/kubetest"
)

// The real kube-apiserver of ../shared/realkube, one for the package's realkube tests.
var kubeEnv kubetest.Shared

func TestMain(m *testing.M) { os.Exit(kubeEnv.Run(m)) }

// recordingKube is the real Kubernetes adapter, each call recorded with how many calls the
// Talos nodes had had by then: the order of drains and reboots is what these tests check.
type recordingKube struct {
	*kube.Client

	l      *applyLab
	mu     sync.Mutex
	events []string
}

func (k *recordingKube) add(s string) {
	k.mu.Lock()
	defer k.mu.Unlock()

	k.events = append(k.events, s)
}

func (k *recordingKube) Drain(ctx context.Context, node string, timeout time.Duration, progress func(string)) error {
	k.add("drain " + node + " before " + k.boots(node))

	err := k.Client.Drain(ctx, node, timeout, progress)
	if err != nil {
		k.add("drain " + node + " failed")
	}

	return err
}

func (k *recordingKube) Uncordon(ctx context.Context, node string) error {
	k.add("uncordon " + node + " after " + k.boots(node))

	return k.Client.Uncordon(ctx, node)
}

func (k *recordingKube) boots(node string) string {
	if k.l.nodes[node].Boots() == 0 {
		return "its reboot"
	}

	return "a reboot"
}

// realKubeLab is the apply lab with a real Kubernetes API: a Ready Node per lab node (in a
// namespace of the test's own), reached through --kubeconfig.
func realKubeLab(t *testing.T) (*applyLab, *kubetest.Env, *recordingKube, string) {
	t.Helper()

	env := kubeEnv.Env(t)

	l := newApplyLab(t, map[string]string{"USER": "alice"}, nil)
	addMotd(l) // k8s-node4 needs a reboot

	for _, n := range labNodes {
		if _, err := env.Clientset.CoreV1().Nodes().Get(context.Background(), n, metav1.GetOptions{}); err != nil {
			env.ReadyNode(t, n)
		}
	}

	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, env.Kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}

	rk := &recordingKube{l: l}

	l.h.deps.Hostname = func() (string, error) { return "build-host", nil }
	l.h.deps.Kube = func(data []byte) (app.Kube, error) {
		c, err := kube.New(data)
		if err != nil {
			return nil, err
		}

		rk.Client = c

		return rk, nil
	}

	return l, env, rk, path
}

// The tests share one API server and the lab's node names: they run one after another.

func TestRealKube_ARebootIsDrainedFirstAndUncordonedAfterItsGate(t *testing.T) {
	l, env, rk, kubeconfig := realKubeLab(t)

	env.Namespace(t, "drained")
	env.RunningPod(t, "drained", "web-1", "k8s-node4", map[string]string{"app": "web"})
	env.RunningPod(t, "drained", "web-2", "k8s-node2", map[string]string{"app": "web"})
	env.PDB(t, "drained", "web", map[string]string{"app": "web"}, 1)

	if err := l.apply("--kubeconfig", kubeconfig, "--drain-timeout", "20s", "--format", "json"); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	if want := []string{"drain k8s-node4 before its reboot", "uncordon k8s-node4 after a reboot"}; !slices.Equal(rk.events, want) {
		t.Errorf("Kubernetes calls %q, want %q", rk.events, want)
	}

	ctx := context.Background()

	n, err := env.Clientset.CoreV1().Nodes().Get(ctx, "k8s-node4", metav1.GetOptions{})
	if err != nil || n.Spec.Unschedulable {
		t.Errorf("k8s-node4 still cordoned after its gate (%v)", err)
	}

	pods, err := env.Clientset.CoreV1().Pods("drained").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}

	var left []string
	for _, p := range pods.Items {
		left = append(left, p.Name)
	}

	if !slices.Equal(left, []string{"web-2"}) {
		t.Errorf("pods left %q, want web-2 only (web-1 evicted from k8s-node4, within its PDB)", left)
	}

	if l.nodes["k8s-node4"].Boots() != 1 {
		t.Errorf("k8s-node4 booted %d times, want 1", l.nodes["k8s-node4"].Boots())
	}
}

func TestRealKube_APDBThatForbidsTheEvictionStopsTheRolloutWithTheNodeUntouched(t *testing.T) {
	l, env, rk, kubeconfig := realKubeLab(t)

	env.Namespace(t, "guarded")
	env.RunningPod(t, "guarded", "db-0", "k8s-node4", map[string]string{"app": "db"})
	env.PDB(t, "guarded", "db", map[string]string{"app": "db"}, 0)

	err := l.apply("--kubeconfig", kubeconfig, "--drain-timeout", "3s", "--format", "json")
	if err == nil {
		t.Fatal("apply passed a drain the PDB forbids")
	}

	t.Logf("k8s-node4: %s", l.report(t).Nodes[4].Detail)

	if got := l.report(t).Nodes[4]; got.Outcome != "failed" || !strings.Contains(got.Detail, "drain did not finish in 3s") || !strings.Contains(got.Detail, "its config was not applied") || !strings.Contains(got.Detail, "guarded/db-0") {
		t.Errorf("k8s-node4: %+v", got)
	}

	if l.nodes["k8s-node4"].Boots() != 0 || len(l.nodes["k8s-node4"].Applied()) != 0 {
		t.Errorf("k8s-node4 was touched: %d boots, %d configs", l.nodes["k8s-node4"].Boots(), len(l.nodes["k8s-node4"].Applied()))
	}

	ctx := context.Background()

	if _, err := env.Clientset.CoreV1().Pods("guarded").Get(ctx, "db-0", metav1.GetOptions{}); err != nil {
		t.Errorf("the guarded pod is gone: %v", err)
	}

	if n, err := env.Clientset.CoreV1().Nodes().Get(ctx, "k8s-node4", metav1.GetOptions{}); err != nil || n.Spec.Unschedulable {
		t.Errorf("k8s-node4 was left cordoned although nothing was done to it (%v)", err)
	}

	if !slices.Contains(rk.events, "drain k8s-node4 failed") {
		t.Errorf("Kubernetes calls %q", rk.events)
	}

	// Let the other tests evict freely again.
	if err := env.Clientset.PolicyV1().PodDisruptionBudgets("guarded").Delete(ctx, "db", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestRealKube_ASecondApplyIsRefusedNamingTheFirst(t *testing.T) {
	l, env, _, kubeconfig := realKubeLab(t)

	first, err := kube.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}

	// Renewed often: the apply sees it renewed soon, and is refused.
	first.RenewInterval = 200 * time.Millisecond

	release, err := first.Lock(context.Background(), "homelab", "github-actions lab/infra run 42 (bob)", nil)
	if err != nil {
		t.Fatal(err)
	}

	defer release(context.Background()) //nolint:errcheck // the test ends

	err = l.apply("--kubeconfig", kubeconfig)

	var refused *app.RefusedError
	if !errors.As(err, &refused) || !strings.Contains(l.h.stderr.String(), "is being applied by github-actions lab/infra run 42 (bob) since ") {
		t.Fatalf("error %v, stderr:\n%s", err, l.h.stderr.String())
	}

	if got := l.journal.Entries(); len(got) != 0 {
		t.Errorf("the refused apply called the nodes: %q", got)
	}
}

// A Lease whose holder died is taken over once it lapses; meanwhile the apply says what it
// waits for, and does not look hung.
func TestRealKube_AnApplyWaitingForALapsingLockSaysSo(t *testing.T) {
	l, env, _, kubeconfig := realKubeLab(t)

	dead, err := kube.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}

	dead.LeaseDuration = 4 * time.Second
	dead.RenewInterval = time.Second

	ctx, die := context.WithCancel(context.Background())
	if _, err := dead.Lock(ctx, "homelab", "github-actions lab/infra run 40 (carol)", nil); err != nil {
		t.Fatal(err)
	}

	die() // its holder stops renewing it, and never releases it

	if err := l.apply("--kubeconfig", kubeconfig); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	if !strings.Contains(l.h.stderr.String(), "waiting for the apply lock of homelab (the Lease kube-system/talops-apply-homelab): another apply holds it") {
		t.Errorf("the wait for the lock is not told:\n%s", l.h.stderr.String())
	}
}
