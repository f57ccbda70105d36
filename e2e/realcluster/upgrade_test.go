//go:build realtalos && k8s && cluster

package realcluster

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A Kubernetes patch upgrade moves the kube-apiserver, controller-manager and scheduler of
// all three control planes and the kubelet of every node, control planes and worker, to the
// new release; the apply ends once every real kubelet reports it on a Ready Node.
func TestCluster_APatchUpgradeMovesEveryControlPlaneAndEveryKubelet(t *testing.T) {
	c := newCluster(t, 1, 40*time.Minute)

	data, err := os.ReadFile(filepath.Join(c.dir, "talops.yaml"))
	if err != nil {
		t.Fatal(err)
	}

	c.write(t, "talops.yaml", strings.Replace(string(data), "kubernetesVersion: "+k8sVersion, "kubernetesVersion: "+k8sNext, 1))

	r := talopsRun(t, 30*time.Minute, nil, c.applyArgs()...)
	if r.code != 0 {
		t.Fatalf("apply of Kubernetes %s: exit %d", k8sNext, r.code)
	}

	ctx := context.Background()

	for _, m := range c.members {
		n, err := c.kube.CoreV1().Nodes().Get(ctx, m.host, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}

		if got := n.Status.NodeInfo.KubeletVersion; got != k8sNext {
			t.Errorf("after the apply Node %s reports kubelet %s, want %s", m.host, got, k8sNext)
		}
	}

	for _, m := range c.controlPlanes() {
		for _, comp := range []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler"} {
			eventually(t, comp+" of "+m.host+" runs "+k8sNext, 3*time.Minute, func() bool {
				p, err := c.kube.CoreV1().Pods("kube-system").Get(ctx, comp+"-"+m.host, metav1.GetOptions{})

				return err == nil && p.Status.Phase == corev1.PodRunning && len(p.Spec.Containers) == 1 &&
					p.Spec.Containers[0].Image == "registry.k8s.io/"+comp+":"+k8sNext
			})
		}
	}
}
