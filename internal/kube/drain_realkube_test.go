//go:build realkube

package kube_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/talops/talops/internal/kube/kubetest"
)

// lines records progress lines, which the drain reports from several goroutines.
type lines struct {
	mu  sync.Mutex
	got []string
}

func (l *lines) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()

	l.got = append(l.got, s)
}

func (l *lines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()

	return slices.Clone(l.got)
}

// podsOn is the names of the pods of ns bound to node.
func podsOn(t *testing.T, env *kubetest.Env, ns, node string) []string {
	t.Helper()

	list, err := env.Clientset.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
	if err != nil {
		t.Fatal(err)
	}

	var names []string
	for _, p := range list.Items {
		names = append(names, p.Name)
	}

	slices.Sort(names)

	return names
}

func cordoned(t *testing.T, env *kubetest.Env, node string) bool {
	t.Helper()

	n, err := env.Clientset.CoreV1().Nodes().Get(context.Background(), node, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}

	return n.Spec.Unschedulable
}

// unique fails when a progress line came more than once.
func unique(t *testing.T, got []string) {
	t.Helper()

	seen := map[string]bool{}
	for _, l := range got {
		if seen[l] {
			t.Errorf("progress line %q came more than once: %q", l, got)
		}

		seen[l] = true
	}
}

func TestDrain_EvictsThePodsOfTheNodeAndLeavesItCordoned(t *testing.T) {
	t.Parallel()

	c, env := client(t)
	ns := "drain-evicts"
	env.Namespace(t, ns)
	env.ReadyNode(t, "drain-evicts-1")
	env.ReadyNode(t, "drain-evicts-2")
	env.RunningPod(t, ns, "web-1", "drain-evicts-1", map[string]string{"app": "web"})
	env.RunningPod(t, ns, "loner", "drain-evicts-1", nil)
	env.RunningPod(t, ns, "elsewhere", "drain-evicts-2", nil)
	// A budget that lets one pod go: the drain honours it and still gets through.
	env.PDB(t, ns, "web", map[string]string{"app": "web"}, 1)

	var progress lines

	if err := c.Drain(context.Background(), "drain-evicts-1", 30*time.Second, progress.add); err != nil {
		t.Fatalf("Drain: %v", err)
	}

	if left := podsOn(t, env, ns, "drain-evicts-1"); len(left) != 0 {
		t.Errorf("pods left on the drained node: %v", left)
	}

	if left := podsOn(t, env, ns, "drain-evicts-2"); !slices.Equal(left, []string{"elsewhere"}) {
		t.Errorf("pods on the other node = %v, want [elsewhere]", left)
	}

	if !cordoned(t, env, "drain-evicts-1") {
		t.Error("the drained node is schedulable")
	}

	if cordoned(t, env, "drain-evicts-2") {
		t.Error("the other node was cordoned")
	}

	got := progress.all()
	if len(got) == 0 || got[0] != "draining (2 pods)" {
		t.Errorf("progress = %q, want it to begin with %q", got, "draining (2 pods)")
	}

	for _, want := range []string{"evicting pod drain-evicts/web-1", "evicting pod drain-evicts/loner"} {
		if !slices.Contains(got, want) {
			t.Errorf("progress = %q, want a line %q", got, want)
		}
	}

	unique(t, got)
}

func TestDrain_PDBWithNoDisruptionsAllowedFailsWithinTheTimeoutAndLeavesThePod(t *testing.T) {
	t.Parallel()

	c, env := client(t)
	ns := "drain-blocked"
	env.Namespace(t, ns)
	env.ReadyNode(t, "drain-blocked-1")
	env.RunningPod(t, ns, "guarded", "drain-blocked-1", map[string]string{"app": "db"})
	env.PDB(t, ns, "db", map[string]string{"app": "db"}, 0)

	var progress lines

	start := time.Now()
	err := c.Drain(context.Background(), "drain-blocked-1", 3*time.Second, progress.add)
	took := time.Since(start)

	if err == nil {
		t.Fatal("Drain went through a budget that allows no disruption")
	}

	// The user learns which pod held the drain up.
	if !strings.Contains(err.Error(), "guarded") {
		t.Errorf("Drain error does not name the pod it could not evict: %v", err)
	}

	if took > 20*time.Second {
		t.Errorf("Drain took %s with a 3s timeout", took)
	}

	if left := podsOn(t, env, ns, "drain-blocked-1"); !slices.Equal(left, []string{"guarded"}) {
		t.Errorf("pods on the node = %v, want the guarded pod still there", left)
	}

	pod, err := env.Clientset.CoreV1().Pods(ns).Get(context.Background(), "guarded", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}

	if pod.DeletionTimestamp != nil {
		t.Error("the guarded pod is being deleted")
	}

	if !cordoned(t, env, "drain-blocked-1") {
		t.Error("a node whose drain failed is schedulable again")
	}

	got := progress.all()
	if len(got) == 0 || got[0] != "draining (1 pod)" {
		t.Errorf("progress = %q, want it to begin with %q", got, "draining (1 pod)")
	}

	// Refused evictions are retried many times in 3s; each line still comes once.
	unique(t, got)
}

func TestDrain_ANodeThatIsNotThereIsNotFound(t *testing.T) {
	t.Parallel()

	c, _ := client(t)

	err := c.Drain(context.Background(), "drain-ghost", 5*time.Second, nil)
	if !apierrors.IsNotFound(err) {
		t.Errorf("Drain of a missing node = %v, want NotFound", err)
	}
}

func TestUncordon_MakesADrainedNodeSchedulable(t *testing.T) {
	t.Parallel()

	c, env := client(t)
	env.ReadyNode(t, "uncordon-1")

	if err := c.Drain(context.Background(), "uncordon-1", 10*time.Second, nil); err != nil {
		t.Fatalf("Drain: %v", err)
	}

	if !cordoned(t, env, "uncordon-1") {
		t.Fatal("Drain left the node schedulable")
	}

	if err := c.Uncordon(context.Background(), "uncordon-1"); err != nil {
		t.Fatalf("Uncordon: %v", err)
	}

	if cordoned(t, env, "uncordon-1") {
		t.Error("Uncordon left the node cordoned")
	}

	if err := c.Uncordon(context.Background(), "uncordon-ghost"); err != nil {
		t.Errorf("Uncordon of a node that is gone = %v, want nil", err)
	}
}
