//go:build realkube

package app_test

import (
	"context"
	"os"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/kube"
	"github.com/talops/talops/internal/kube/kubetest"
)

// The real kube-apiserver of ../shared/realkube, one for the package's realkube tests.
var kubeEnv kubetest.Shared

func TestMain(m *testing.M) { os.Exit(kubeEnv.Run(m)) }

// From init to applies against fake Talos nodes and the real kube-apiserver: the nodes of
// an init --no-hostnames cluster picked their own hostnames, and their kubelets registered
// Nodes under those names, not the talops names. An apply that reboots drains each of
// those Nodes (its pod evicted through the budget), uncordons it after its gate, and
// leaves every Node schedulable.
func TestApplyRealKube_AnInitMadeClusterDrainsAndUncordonsTheNodesItsKubeletsRegistered(t *testing.T) {
	env := kubeEnv.Env(t)
	ctx := context.Background()

	files := initFiles(t, app.InitOptions{NoHostnames: true})
	picked := map[string]string{"lab-cp1": "talos-4xk-91q", "lab-worker1": "talos-7pe-2mz"}
	l := startInitLab(t, files, picked)

	l.apply(t, "the first apply, from maintenance mode")

	labels := map[string]string{"app": "web"}
	env.Namespace(t, "web")

	for _, kubeName := range picked {
		env.ReadyNode(t, kubeName)
		env.RunningPod(t, "web", "web-"+kubeName, kubeName, labels)
	}

	env.PDB(t, "web", "web", labels, 2)

	l.d.Kube = func([]byte) (app.Kube, error) { return kube.New(env.Kubeconfig) }

	// A file reboots a node of Talos 1.13: each is drained first.
	files["patches/all.yaml"] = append(files["patches/all.yaml"], []byte("  files:\n    - path: /var/etc/motd\n      permissions: 0o644\n      op: create\n      content: hello\n")...)

	l.apply(t, "an apply that reboots")

	nodes, err := env.Clientset.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}

	for _, n := range nodes.Items {
		if n.Spec.Unschedulable {
			t.Errorf("Node %s is still cordoned after the apply", n.Name)
		}
	}

	pods, err := env.Clientset.CoreV1().Pods("web").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}

	for _, p := range pods.Items {
		t.Errorf("pod %s on %s was not evicted: its Node was not drained", p.Name, p.Spec.NodeName)
	}
}
