//go:build realkube

package cli_test

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/talops/talops/internal/kube/kubetest"
)

// widgetHealthCheck checks the Widget custom resource healthchecks/store.
const widgetHealthCheck = "healthChecks:\n  - name: store\n    apiVersion: example.talops.dev/v1\n    kind: Widget\n    namespace: healthchecks\n    objectName: store\n    expr: object.status.phase == \"Healthy\"\n    timeout: TIMEOUT\n"

// healthLab is the real-Kubernetes apply lab with k8s-node3 and k8s-node4 both rebooting,
// the health check on a Widget whose phase the test sets, and the Widget's resource.
func healthLab(t *testing.T, phase, timeout string) (*applyLab, *kubetest.Env, schema.GroupVersionResource, string) {
	t.Helper()

	l, env, _, kubeconfig := realKubeLab(t)
	l.files["nodes/k8s-node3.yaml"] = append(l.files["nodes/k8s-node3.yaml"], []byte("---\nmachine:\n  files:\n    - path: /var/etc/motd\n      permissions: 0o644\n      op: create\n      content: hello\n")...)
	l.files["talops.yaml"] = append(l.files["talops.yaml"], []byte(strings.Replace(widgetHealthCheck, "TIMEOUT", timeout, 1))...)
	l.h.deps.GateInterval = 300 * time.Millisecond

	if _, err := env.Clientset.CoreV1().Namespaces().Get(t.Context(), "healthchecks", metav1.GetOptions{}); err != nil {
		env.Namespace(t, "healthchecks")
	}

	gvr := env.CRD(t, "example.talops.dev", "Widget")
	setPhase(t, env, gvr, phase)

	return l, env, gvr, kubeconfig
}

func setPhase(t *testing.T, env *kubetest.Env, gvr schema.GroupVersionResource, phase string) {
	t.Helper()

	env.Object(t, gvr, map[string]any{
		"apiVersion": "example.talops.dev/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "store", "namespace": "healthchecks"},
		"status":   map[string]any{"phase": phase},
	})
}

func TestRealKube_AFailingHealthCheckHoldsTheRolloutBeforeTheNextNodeNamingObjectAndValue(t *testing.T) {
	l, env, gvr, kubeconfig := healthLab(t, "Healthy", "2s")

	// The store degrades once k8s-node3 rebooted.
	done := make(chan struct{})
	defer close(done)

	go func() {
		for l.nodes["k8s-node3"].Boots() == 0 {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}

		setPhase(t, env, gvr, "Degraded")
	}()

	err := l.apply("--kubeconfig", kubeconfig, "--format", "json")
	if err == nil {
		t.Fatal("apply went on past a failing health check")
	}

	want := `health check store held the rollout before k8s-node4: after 2s: Widget healthchecks/store: object.status.phase = "Degraded"`
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %v\nwant %s", err, want)
	}

	if l.nodes["k8s-node3"].Boots() != 1 || l.nodes["k8s-node4"].Boots() != 0 {
		t.Errorf("boots: k8s-node3 %d, k8s-node4 %d", l.nodes["k8s-node3"].Boots(), l.nodes["k8s-node4"].Boots())
	}
}

func TestRealKube_APassingHealthCheckLetsTheRolloutGoOn(t *testing.T) {
	l, _, _, kubeconfig := healthLab(t, "Healthy", "2s")

	if err := l.apply("--kubeconfig", kubeconfig, "--format", "json"); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	if l.nodes["k8s-node3"].Boots() != 1 || l.nodes["k8s-node4"].Boots() != 1 {
		t.Errorf("boots: k8s-node3 %d, k8s-node4 %d", l.nodes["k8s-node3"].Boots(), l.nodes["k8s-node4"].Boots())
	}
}

func TestRealKube_AHealthCheckThatBecomesTrueWithinItsTimeoutPasses(t *testing.T) {
	l, env, gvr, kubeconfig := healthLab(t, "Recovering", "30s")

	time.AfterFunc(time.Second, func() { setPhase(t, env, gvr, "Healthy") })

	if err := l.apply("--kubeconfig", kubeconfig, "--format", "json"); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	if !strings.Contains(l.h.stderr.String(), `health check store before k8s-node3: waiting up to 30s (Widget healthchecks/store: object.status.phase = "Recovering")`) {
		t.Errorf("stderr does not show the wait:\n%s", l.h.stderr.String())
	}

	if l.nodes["k8s-node4"].Boots() != 1 {
		t.Errorf("k8s-node4 booted %d times", l.nodes["k8s-node4"].Boots())
	}
}
