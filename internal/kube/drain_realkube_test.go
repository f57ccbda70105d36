//go:build realkube

package kube_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
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

// pod is a pod of a drain test, bound to node.
func pod(ns, name, node string, mod func(*corev1.Pod)) *corev1.Pod {
	zero := int64(0)
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"pod": name}},
		Spec:       corev1.PodSpec{NodeName: node, TerminationGracePeriodSeconds: &zero},
	}

	if mod != nil {
		mod(p)
	}

	return p
}

// daemonSet creates a DaemonSet and returns the controller reference its pods carry.
func daemonSet(t *testing.T, env *kubetest.Env, ns, name string) metav1.OwnerReference {
	t.Helper()

	labels := map[string]string{"ds": name}
	ds, err := env.Clientset.AppsV1().DaemonSets(ns).Create(context.Background(), &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "registry.invalid/agent:1"}}},
			},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	yes := true

	return metav1.OwnerReference{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: ds.UID, Controller: &yes}
}

func TestDrain_WhichPodsItEvictsAndWhatItSays(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name    string
		timeout time.Duration
		// pods makes the pods on the node (ns, node: the test's own).
		pods func(t *testing.T, env *kubetest.Env, ns, node string) []*corev1.Pod
		// meanwhile runs while the drain does.
		meanwhile func(t *testing.T, env *kubetest.Env, ns string)
		wantLeft  []string
		wantErr   []string // what the error names; none: no error
		wantLines []string // the beginnings of progress lines among the others
	}{
		{
			name:    "a PodDisruptionBudget refuses until it allows, the drain says what it waits for",
			timeout: 60 * time.Second,
			pods: func(t *testing.T, env *kubetest.Env, ns, node string) []*corev1.Pod {
				env.PDB(t, ns, "db", map[string]string{"pod": "db-0"}, 0)

				return []*corev1.Pod{pod(ns, "db-0", node, nil)}
			},
			meanwhile: func(t *testing.T, env *kubetest.Env, ns string) {
				time.Sleep(3 * time.Second)

				pdbs := env.Clientset.PolicyV1().PodDisruptionBudgets(ns)

				pdb, err := pdbs.Get(context.Background(), "db", metav1.GetOptions{})
				if err != nil {
					t.Error(err)

					return
				}

				pdb.Status.DisruptionsAllowed, pdb.Status.CurrentHealthy = 1, 2
				if _, err := pdbs.UpdateStatus(context.Background(), pdb, metav1.UpdateOptions{}); err != nil {
					t.Error(err)
				}
			},
			wantLines: []string{
				"draining (1 pod)",
				"evicting pod drain-pdb-then/db-0",
				"still waiting for drain-pdb-then/db-0 (Cannot evict pod as it would violate the pod's disruption budget.): ",
				"evicted pod drain-pdb-then/db-0",
			},
		},
		{
			name:    "a DaemonSet's pod stays, one whose DaemonSet is gone goes",
			timeout: 30 * time.Second,
			pods: func(t *testing.T, env *kubetest.Env, ns, node string) []*corev1.Pod {
				ref := daemonSet(t, env, ns, "agent")
				orphan := ref
				orphan.Name, orphan.UID = "gone", "00000000-0000-0000-0000-000000000001"

				return []*corev1.Pod{
					pod(ns, "agent-x", node, func(p *corev1.Pod) { p.OwnerReferences = []metav1.OwnerReference{ref} }),
					pod(ns, "orphan-x", node, func(p *corev1.Pod) { p.OwnerReferences = []metav1.OwnerReference{orphan} }),
				}
			},
			wantLeft:  []string{"agent-x"},
			wantLines: []string{"draining (1 pod)", "evicted pod drain-daemonset/orphan-x"},
		},
		{
			name:    "a mirror pod stays, emptyDir and unmanaged pods go",
			timeout: 30 * time.Second,
			pods: func(t *testing.T, env *kubetest.Env, ns, node string) []*corev1.Pod {
				return []*corev1.Pod{
					pod(ns, "kube-apiserver-x", node, func(p *corev1.Pod) {
						p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "hash"}
					}),
					pod(ns, "scratch", node, func(p *corev1.Pod) {
						p.Spec.Volumes = []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
					}),
				}
			},
			wantLeft:  []string{"kube-apiserver-x"},
			wantLines: []string{"draining (1 pod)", "evicted pod drain-mirror/scratch"},
		},
		{
			name:    "out of time, the error names the pods still there",
			timeout: 3 * time.Second,
			pods: func(t *testing.T, env *kubetest.Env, ns, node string) []*corev1.Pod {
				// A grace period and no kubelet to end it: evicted, never gone.
				grace := int64(600)

				return []*corev1.Pod{
					pod(ns, "slow", node, func(p *corev1.Pod) { p.Spec.TerminationGracePeriodSeconds = &grace }),
					pod(ns, "quick", node, nil),
				}
			},
			wantLeft:  []string{"slow"},
			wantErr:   []string{"pods still on node drain-timeout-1 after 3s: drain-timeout/slow (evicted, not gone yet)"},
			wantLines: []string{"draining (2 pods)", "evicted pod drain-timeout/quick"},
		},
	}

	nss := []string{"drain-pdb-then", "drain-daemonset", "drain-mirror", "drain-timeout"}

	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			c, env := client(t)
			c.DrainReport = time.Second
			ns, node := nss[i], nss[i]+"-1"
			env.Namespace(t, ns)
			env.ReadyNode(t, node)

			for _, p := range tt.pods(t, env, ns, node) {
				env.StartPod(t, p)
			}

			if tt.meanwhile != nil {
				go tt.meanwhile(t, env, ns)
			}

			var progress lines

			err := c.Drain(context.Background(), node, tt.timeout, progress.add)

			switch {
			case len(tt.wantErr) == 0 && err != nil:
				t.Errorf("Drain: %v", err)
			case len(tt.wantErr) > 0 && err == nil:
				t.Errorf("Drain went through, want an error naming %q", tt.wantErr)
			}

			if len(tt.wantErr) > 0 && err != nil && !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Drain error %v is not a deadline exceeded", err)
			}

			for _, want := range tt.wantErr {
				if err != nil && !strings.Contains(err.Error(), want) {
					t.Errorf("Drain error %q does not say %q", err, want)
				}
			}

			if left := podsOn(t, env, ns, node); !slices.Equal(left, tt.wantLeft) {
				t.Errorf("pods left on the node = %v, want %v", left, tt.wantLeft)
			}

			got := progress.all()
			for _, want := range tt.wantLines {
				if !slices.ContainsFunc(got, func(l string) bool { return strings.HasPrefix(l, want) }) {
					t.Errorf("progress = %q, want a line that begins %q", got, want)
				}
			}

			unique(t, got)
		})
	}
}
