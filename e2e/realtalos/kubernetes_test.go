//go:build realtalos && k8s

package realtalos

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// The Kubernetes release the harness's Kubernetes mode builds from source (Talos v1.14.1's
// default), the second patch release it links from the same source (K8S_RELINK_VERSION), and
// the pause image its pods run.
const (
	k8sVersion   = "v1.37.0"
	k8sNext      = "v1.37.1"
	pauseImage   = "registry.k8s.io/pause:3.10.2"
	podNamespace = "kube-system" // Talos' default PodSecurity admits host-network pods only here
)

// kubeLab is a lab whose control plane runs a real kubelet and control plane: its Node is
// named after the machine's hostname, which the platform gives (the sandbox's /etc/hostname)
// and only the node's Nodename says: never cp1, nor in any config talops renders.
type kubeLab struct {
	*lab
	node     node
	hostname string
	kube     *kubernetes.Clientset
}

// bootKube writes a lab with the harness's Kubernetes-mode patch, boots the node with a
// forwarder to its kube-apiserver on the cluster endpoint, imports the images, bootstraps it
// and waits for its Node to be Ready. The images of more versions are imported too.
func bootKube(t *testing.T, more ...string) *kubeLab {
	t.Helper()

	return bootKubeAt(t, nodeName(t), newAddress(), more...)
}

// bootKubeAt is bootKube with the harness's node name and address given.
func bootKubeAt(t *testing.T, name, address string, more ...string) *kubeLab {
	t.Helper()

	patch, err := os.ReadFile(filepath.Join(harness, "k8s-patch.yaml"))
	if err != nil {
		t.Fatal(err)
	}

	l := newLabOf(t, address, k8sVersion, []string{"patches/k8s.yaml"})
	l.write(t, "patches/k8s.yaml", string(patch))

	l.booted = l.rendered(t)

	k := &kubeLab{lab: l, node: node{name: name, address: address}}

	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, l.booted, 0o600); err != nil {
		t.Fatal(err)
	}

	t.Cleanup(func() { k.node.stop(t) })

	script(t, 3*time.Minute, "start.sh", "-c", cfg, "-k", address+":6443", k.node.name, k.node.endpoint())

	images := []string{filepath.Join(work, "images", "k8s-"+k8sVersion)}
	for _, v := range more {
		images = append(images, filepath.Join(work, "images", "k8s-"+v))
	}

	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	// Without -node it waits for the Node the node's Nodename names, and prints that name.
	k.hostname = strings.TrimSpace(run(t, 10*time.Minute, filepath.Join(work, "bin", "rtclient"), "k8s", "-addr", k.node.endpoint(), "-talosconfig", l.admin,
		"-etcd", filepath.Join(work, "images", "etcd.tar"), "-pause", filepath.Join(work, "images", "pause.tar"),
		"-images", strings.Join(images, ","),
		"-kubeconfig", kubeconfig, "-version", k8sVersion, "-timeout", "8m"))

	data, err := os.ReadFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}

	rc, err := clientcmd.RESTConfigFromKubeConfig(data)
	if err != nil {
		t.Fatal(err)
	}

	if k.kube, err = kubernetes.NewForConfig(rc); err != nil {
		t.Fatal(err)
	}

	return k
}

// runPod starts a host-network pause pod labelled app=name on the node, tolerating
// everything (a cordoned or not-ready node keeps it), and waits for it to run.
func (k *kubeLab) runPod(t *testing.T, name string) {
	t.Helper()

	grace := int64(1)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: podNamespace, Labels: map[string]string{"app": name}},
		Spec: corev1.PodSpec{
			NodeName:                      k.hostname,
			HostNetwork:                   true,
			TerminationGracePeriodSeconds: &grace,
			Tolerations:                   []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			Containers:                    []corev1.Container{{Name: "pause", Image: pauseImage, ImagePullPolicy: corev1.PullIfNotPresent}},
		},
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	if _, err := k.kube.CoreV1().Pods(podNamespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create pod %s: %v", name, err)
	}

	eventually(t, "pod "+name+" runs", 3*time.Minute, func() bool {
		p, err := k.kube.CoreV1().Pods(podNamespace).Get(context.Background(), name, metav1.GetOptions{})

		return err == nil && p.Status.Phase == corev1.PodRunning
	})
}

// podGone reports whether the pod no longer exists.
func (k *kubeLab) podGone(t *testing.T, name string) bool {
	t.Helper()

	_, err := k.kube.CoreV1().Pods(podNamespace).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("get pod %s: %v", name, err)
	}

	return apierrors.IsNotFound(err)
}

// holdPod gives the pod labelled app=name a PodDisruptionBudget that forbids its eviction,
// and waits until the disruption controller counted the pod (before that the budget
// forbids nothing).
func (k *kubeLab) holdPod(t *testing.T, name string) {
	t.Helper()

	ctx := context.Background()
	one := intstr.FromInt32(1)

	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: podNamespace},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable: &one,
			Selector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
		},
	}

	if _, err := k.kube.PolicyV1().PodDisruptionBudgets(podNamespace).Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	eventually(t, "the budget counts its pod", 2*time.Minute, func() bool {
		p, err := k.kube.PolicyV1().PodDisruptionBudgets(podNamespace).Get(ctx, name, metav1.GetOptions{})

		return err == nil && p.Status.ObservedGeneration == p.Generation && p.Status.CurrentHealthy == 1
	})
}

// releasePod changes the budget of holdPod so that it allows the eviction.
func (k *kubeLab) releasePod(t *testing.T, name string) {
	t.Helper()

	ctx := context.Background()
	zero := intstr.FromInt32(0)

	eventually(t, "the budget is relaxed", 30*time.Second, func() bool {
		cur, err := k.kube.PolicyV1().PodDisruptionBudgets(podNamespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false
		}

		cur.Spec.MinAvailable = &zero
		_, err = k.kube.PolicyV1().PodDisruptionBudgets(podNamespace).Update(ctx, cur, metav1.UpdateOptions{})

		return err == nil
	})
}

// cordoned reports whether the node's Node is unschedulable.
func (k *kubeLab) cordoned(t *testing.T) bool {
	t.Helper()

	n, err := k.kube.CoreV1().Nodes().Get(context.Background(), k.hostname, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get Node %s: %v", k.hostname, err)
	}

	return n.Spec.Unschedulable
}

// needReboot changes the lab so that applying it needs a reboot: Talos 1.14 writes
// machine.files only at boot.
func (k *kubeLab) needReboot(t *testing.T) {
	t.Helper()

	k.write(t, "nodes/cp1.yaml", "machine:\n  sysctls:\n    "+sysctl+": \"45\"\n  files:\n    - path: "+userFile+"\n      op: create\n      permissions: 0o644\n      content: written at boot\n")
}

// applyArgs are the arguments of an apply that takes the lock on the real API server.
func (k *kubeLab) applyArgs(args ...string) []string {
	return append([]string{"apply", "--dir", k.dir, "--talosconfig", k.admin, "--format", "json"}, args...)
}

// parseApply reads apply's JSON view of the lab's one node.
func parseApply(t *testing.T, r result) applyReport {
	t.Helper()

	var rep applyReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("apply --format json: exit %d, %v\nstdout: %s\nstderr: %s", r.code, err, r.stdout, r.stderr)
	}

	if len(rep.Nodes) != 1 {
		t.Fatalf("apply reported %d nodes, want 1", len(rep.Nodes))
	}

	return rep
}

// A drain must find the Node the machine's kubelet registered, named after the machine's
// hostname, which is neither cp1 nor in any config talops renders: only the node's
// Nodename says it. The reboot that follows fails in container mode, so the node was
// drained, got its config, and stays cordoned under that name.
func TestKubernetes_DrainFindsTheNodeByTheNameTheMachineReports(t *testing.T) {
	t.Parallel()

	k := bootKube(t)
	if k.hostname == "" || k.hostname == k.lab.node {
		t.Fatalf("the Node is %q; want a hostname that differs from the talops node name %s", k.hostname, k.lab.node)
	}

	k.runPod(t, "e2e-drained")
	k.needReboot(t)

	r := talopsRun(t, nil, k.applyArgs()...)
	got := parseApply(t, r).Nodes[0]

	if r.code == 0 || got.Outcome != "failed" || !strings.Contains(got.Detail, "then the reboot") ||
		!strings.Contains(got.Detail, "kubectl uncordon "+k.hostname+" ") {
		t.Fatalf("apply of a change that needs a reboot: exit %d, %+v; want Node %s drained, the config applied, the reboot refused in container mode", r.code, got, k.hostname)
	}

	if !k.cordoned(t) {
		t.Errorf("Node %s is schedulable after a drain and a failed reboot", k.hostname)
	}

	eventually(t, "the drain evicts pod e2e-drained", time.Minute, func() bool { return k.podGone(t, "e2e-drained") })
}

// talopsStart runs talops like talopsRun, in the background: the result comes on the
// channel (code -1 when it could not run).
func talopsStart(t *testing.T, env []string, args ...string) <-chan result {
	t.Helper()

	ch := make(chan result, 1)
	cmd := exec.Command(talops, args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)

	var stdout, stderr bytes.Buffer

	cmd.Stdout, cmd.Stderr = &stdout, &stderr

	if err := cmd.Start(); err != nil {
		t.Fatalf("talops %s: %v", strings.Join(args, " "), err)
	}

	t.Cleanup(func() { _ = cmd.Process.Kill() }) // it may have ended

	go func() {
		err := cmd.Wait()

		r := result{stdout: stdout.String(), stderr: stderr.String()}

		var exit *exec.ExitError

		switch {
		case err == nil:
		case errors.As(err, &exit):
			r.code = exit.ExitCode()
		default:
			r.code, r.stderr = -1, err.Error()
		}

		ch <- r
	}()

	return ch
}

// The apply lock is a Lease on the real API server: while one apply waits on a drain that
// a PodDisruptionBudget forbids, a second apply is refused naming the first. Once the
// budget allows the eviction the first apply's drain goes through.
func TestKubernetes_ASecondApplyIsRefusedNamingTheFirstWhileABudgetHoldsItsDrain(t *testing.T) {
	t.Parallel()

	k := bootKube(t)
	k.runPod(t, "e2e-held")

	k.holdPod(t, "e2e-held")
	k.needReboot(t)

	first := talopsStart(t, []string{"USER=first-e2e"}, k.applyArgs("--drain-timeout", "5m")...)

	eventually(t, "the first apply cordons Node "+k.hostname, 3*time.Minute, func() bool { return k.cordoned(t) })

	second := talopsRun(t, []string{"USER=second-e2e"}, k.applyArgs()...)
	if second.code == 0 || !strings.Contains(second.stderr, "is being applied by first-e2e@") {
		t.Errorf("a second apply during the first: exit %d, stderr %q; want it refused naming first-e2e", second.code, second.stderr)
	}

	if k.podGone(t, "e2e-held") {
		t.Fatal("the pod was evicted while its budget forbade it")
	}

	k.releasePod(t, "e2e-held")

	var r result

	select {
	case r = <-first:
	case <-time.After(8 * time.Minute):
		t.Fatal("the first apply did not end within 8 minutes of the budget allowing the eviction")
	}

	t.Logf("first apply → exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)

	got := parseApply(t, r).Nodes[0]
	if got.Outcome != "failed" || !strings.Contains(got.Detail, "then the reboot") {
		t.Errorf("the first apply: exit %d, %+v; want the drain done and the config applied, the reboot refused in container mode", r.code, got)
	}

	if !k.podGone(t, "e2e-held") {
		t.Error("the first apply's drain left pod e2e-held")
	}
}

// A Kubernetes patch upgrade moves kube-apiserver, kube-controller-manager, kube-scheduler
// and the kubelet of the real node to the new release, one image at a time, and the apply
// ends once the real kubelet reports the new version on a Ready Node.
func TestKubernetes_PatchUpgradeMovesTheControlPlaneAndTheKubelet(t *testing.T) {
	t.Parallel()

	k := bootKube(t, k8sNext)

	data, err := os.ReadFile(filepath.Join(k.dir, "talops.yaml"))
	if err != nil {
		t.Fatal(err)
	}

	k.write(t, "talops.yaml", strings.Replace(string(data), "kubernetesVersion: "+k8sVersion, "kubernetesVersion: "+k8sNext, 1))

	r := talopsRun(t, nil, k.applyArgs()...)
	if got := parseApply(t, r).Nodes[0]; r.code != 0 || got.Outcome != "applied" {
		t.Fatalf("apply of Kubernetes %s: exit %d, %+v", k8sNext, r.code, got)
	}

	ctx := context.Background()

	// The apply waited for the kubelet: the Node says the new version at once.
	n, err := k.kube.CoreV1().Nodes().Get(ctx, k.hostname, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}

	if got := n.Status.NodeInfo.KubeletVersion; got != k8sNext {
		t.Errorf("after the apply Node %s reports kubelet %s, want %s", k.hostname, got, k8sNext)
	}

	for _, c := range []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler"} {
		eventually(t, c+" runs "+k8sNext, 3*time.Minute, func() bool {
			p, err := k.kube.CoreV1().Pods(podNamespace).Get(ctx, c+"-"+k.hostname, metav1.GetOptions{})

			return err == nil && p.Status.Phase == corev1.PodRunning && len(p.Spec.Containers) == 1 &&
				p.Spec.Containers[0].Image == "registry.k8s.io/"+c+":"+k8sNext
		})
	}

	v, err := k.kube.Discovery().ServerVersion()
	if err != nil || v.GitVersion != k8sNext {
		t.Errorf("the API server says %v, %v; want %s", v, err, k8sNext)
	}
}

// reboot emulates the reboot container mode refuses: the node stops and boots again from
// its saved state and config, with its kube-apiserver forwarder, and its Node is Ready again.
func (k *kubeLab) reboot(t *testing.T) {
	t.Helper()

	script(t, time.Minute, "stop.sh", k.node.name)
	runEnv(t, []string{"KEEP_STATE=1"}, 3*time.Minute, "bash", filepath.Join(harness, "start.sh"), "-k", k.node.address+":6443", k.node.name, k.node.endpoint())

	since := time.Now()

	eventually(t, "Node "+k.hostname+" is Ready after the reboot", 5*time.Minute, func() bool {
		n, err := k.kube.CoreV1().Nodes().Get(context.Background(), k.hostname, metav1.GetOptions{})
		if err != nil {
			return false
		}

		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady {
				return c.Status == corev1.ConditionTrue && c.LastHeartbeatTime.After(since)
			}
		}

		return false
	})
}

// reviewed copies the lab as it is now, the base a pull request's plan is reviewed against.
func (k *kubeLab) reviewed(t *testing.T) string {
	t.Helper()

	base := filepath.Join(t.TempDir(), "base")
	if err := os.CopyFS(base, os.DirFS(k.dir)); err != nil {
		t.Fatal(err)
	}

	return base
}

// planHash is the hash of the lab's plan against base, as its pull request's comment says it.
func (k *kubeLab) planHash(t *testing.T, base string) string {
	t.Helper()

	r := talopsRun(t, nil, "plan", "--dir", k.dir, "--against", base, "--format", "json")

	var p struct {
		Hash string `json:"hash"`
	}

	if err := json.Unmarshal([]byte(r.stdout), &p); err != nil || p.Hash == "" {
		t.Fatalf("plan --against: exit %d, %v\nstdout: %s\nstderr: %s", r.code, err, r.stdout, r.stderr)
	}

	return p.Hash
}

// An apply of a change that needs a reboot drains the node first: while a
// PodDisruptionBudget forbids the eviction of its host-network pod, the drain gives up and
// the node is uncordoned back with its config not applied; once the budget allows it, the
// pod is evicted, the config applied, and the node stays cordoned when the reboot fails
// (container mode refuses it). After the reboot, the next apply of the same reviewed plan
// waits for the node's health gate and only then uncordons it.
func TestKubernetes_ApplyDrainsBeforeTheRebootAndUncordonsAfterTheGate(t *testing.T) {
	t.Parallel()

	k := bootKube(t)
	k.runPod(t, "e2e-budget")
	k.holdPod(t, "e2e-budget")

	base := k.reviewed(t)
	k.needReboot(t)

	args := k.applyArgs("--plan-hash", k.planHash(t, base), "--reviewed-against", base, "--drain-timeout", "20s")

	r := talopsRun(t, nil, args...)
	got := parseApply(t, r).Nodes[0]

	if r.code == 0 || got.Outcome != "failed" || !strings.Contains(got.Detail, "drain did not finish in 20s") ||
		!strings.Contains(got.Detail, "its config was not applied") {
		t.Fatalf("apply while a budget forbids the eviction: exit %d, %+v; want the drain given up, the config not applied", r.code, got)
	}

	if k.cordoned(t) {
		t.Errorf("Node %s stays cordoned after a drain that gave up", k.hostname)
	}

	if k.podGone(t, "e2e-budget") {
		t.Fatal("the pod was evicted while its budget forbade it")
	}

	k.releasePod(t, "e2e-budget")

	r = talopsRun(t, nil, args...)
	got = parseApply(t, r).Nodes[0]

	if r.code == 0 || got.Outcome != "failed" || !strings.Contains(got.Detail, "then the reboot") ||
		!strings.Contains(got.Detail, "kubectl uncordon "+k.hostname+" ") {
		t.Fatalf("apply once the budget allows the eviction: exit %d, %+v; want the drain done, the config applied, the reboot refused in container mode", r.code, got)
	}

	if !k.cordoned(t) {
		t.Errorf("Node %s is schedulable after a drain and a failed reboot", k.hostname)
	}

	eventually(t, "the drain evicts pod e2e-budget", time.Minute, func() bool { return k.podGone(t, "e2e-budget") })

	k.reboot(t)

	r = talopsRun(t, nil, args...)
	rep := parseApply(t, r)
	got = rep.Nodes[0]

	t.Logf("the apply after the reboot → exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)

	if r.code != 0 || got.Outcome != "applied" || !strings.Contains(got.Detail, "is healthy, uncordoned") {
		t.Fatalf("apply after the reboot: exit %d, %+v; want the node gated, then uncordoned", r.code, got)
	}

	if k.cordoned(t) {
		t.Errorf("Node %s stays cordoned after its health gate passed", k.hostname)
	}
}
