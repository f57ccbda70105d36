package kubetest

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// fixtureTimeout bounds each fixture's requests: a loopback server answers in
// milliseconds, and a hung one should fail the test, not the package's timeout.
const fixtureTimeout = 30 * time.Second

// Namespace creates a namespace. Nothing deletes it (there is no namespace controller to
// finish that): give each test its own.
func (e *Env) Namespace(t testing.TB, name string) *corev1.Namespace {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), fixtureTimeout)
	defer cancel()

	ns, err := e.Clientset.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}

	return ns
}

// ReadyNode creates a Node that reports Ready, as a kubelet and the node lifecycle
// controller would leave it: without the not-ready taint the server puts on a new Node. The
// Node goes when the test ends: Nodes are not namespaced, and the next test of a package
// sharing the server would take it for one of its cluster's.
func (e *Env) ReadyNode(t testing.TB, name string) *corev1.Node {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), fixtureTimeout)
	defer cancel()

	nodes := e.Clientset.CoreV1().Nodes()

	node, err := nodes.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name: name, Labels: map[string]string{"kubernetes.io/hostname": name},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create node %s: %v", name, err)
	}

	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), fixtureTimeout)
		defer cancel()

		if err := nodes.Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("delete node %s: %v", name, err)
		}
	})

	now := metav1.Now()
	node.Status.Conditions = []corev1.NodeCondition{{
		Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
		LastHeartbeatTime: now, LastTransitionTime: now,
	}}

	node, err = nodes.UpdateStatus(ctx, node, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("report node %s Ready: %v", name, err)
	}

	node.Spec.Taints = slices.DeleteFunc(node.Spec.Taints, func(taint corev1.Taint) bool {
		return taint.Key == corev1.TaintNodeNotReady
	})

	node, err = nodes.Update(ctx, node, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("untaint node %s: %v", name, err)
	}

	return node
}

// NodeAddresses makes the Node report addresses as its InternalIPs (status.addresses), as a
// kubelet does.
func (e *Env) NodeAddresses(t testing.TB, node string, addresses ...string) *corev1.Node {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), fixtureTimeout)
	defer cancel()

	n, err := e.Clientset.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get node %s: %v", node, err)
	}

	n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: node}}
	for _, a := range addresses {
		n.Status.Addresses = append(n.Status.Addresses, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: a})
	}

	n, err = e.Clientset.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("report the addresses of node %s: %v", node, err)
	}

	return n
}

// KubeletVersion makes the Node report version as its kubelet's (status.nodeInfo), as a
// kubelet does after an upgrade.
func (e *Env) KubeletVersion(t testing.TB, node, version string) *corev1.Node {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), fixtureTimeout)
	defer cancel()

	n, err := e.Clientset.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get node %s: %v", node, err)
	}

	n.Status.NodeInfo.KubeletVersion = version

	n, err = e.Clientset.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("report kubelet %s on node %s: %v", version, node, err)
	}

	return n
}

// RunningPod creates a pod bound to node and reports it Running and Ready. Its grace
// period is 0, so an eviction deletes it at once: there is no kubelet to finish a
// graceful termination. A Pending pod would not do: evictions skip the PDB check for it.
func (e *Env) RunningPod(t testing.TB, ns, name, node string, labels map[string]string) *corev1.Pod {
	t.Helper()

	zero := int64(0)

	return e.StartPod(t, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels},
		Spec: corev1.PodSpec{
			NodeName:                      node,
			TerminationGracePeriodSeconds: &zero,
		},
	})
}

// StartPod creates the pod (bound to its spec.nodeName) and reports it Running and Ready,
// as RunningPod does for a pod of the test's own making (owners, annotations, volumes, a
// grace period). A pod without containers gets one.
func (e *Env) StartPod(t testing.TB, pod *corev1.Pod) *corev1.Pod {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), fixtureTimeout)
	defer cancel()

	if len(pod.Spec.Containers) == 0 {
		pod.Spec.Containers = []corev1.Container{{Name: "app", Image: "registry.invalid/pause:3.10"}}
	}

	pods := e.Clientset.CoreV1().Pods(pod.Namespace)

	created, err := pods.Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create pod %s/%s: %v", pod.Namespace, pod.Name, err)
	}

	pod = created

	now := metav1.Now()
	pod.Status.Phase = corev1.PodRunning
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now}}
	pod.Status.StartTime = &now

	pod, err = pods.UpdateStatus(ctx, pod, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("report pod %s/%s Running: %v", pod.Namespace, pod.Name, err)
	}

	return pod
}

// PDB creates a PodDisruptionBudget over the pods with the selector's labels and writes
// the status the disruption controller would: disruptionsAllowed evictions may go ahead
// (each one the server lets through lowers it), 0 refuses every one.
func (e *Env) PDB(t testing.TB, ns, name string, selector map[string]string, disruptionsAllowed int) *policyv1.PodDisruptionBudget {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), fixtureTimeout)
	defer cancel()

	pdbs := e.Clientset.PolicyV1().PodDisruptionBudgets(ns)
	minAvailable := intstr.FromInt32(1)

	pdb, err := pdbs.Create(ctx, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable: &minAvailable,
			Selector:     &metav1.LabelSelector{MatchLabels: selector},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create pdb %s/%s: %v", ns, name, err)
	}

	allowed := int32(disruptionsAllowed) //nolint:gosec // a test's small count
	pdb.Status = policyv1.PodDisruptionBudgetStatus{
		ObservedGeneration: pdb.Generation,
		DisruptionsAllowed: allowed,
		CurrentHealthy:     1 + allowed,
		DesiredHealthy:     1,
		ExpectedPods:       1 + allowed,
	}

	pdb, err = pdbs.UpdateStatus(ctx, pdb, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("write status of pdb %s/%s: %v", ns, name, err)
	}

	return pdb
}
