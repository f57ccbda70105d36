package cli_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/health"
)

const cephHealthCheck = "healthChecks:\n  - name: ceph\n    apiVersion: ceph.rook.io/v1\n    kind: CephCluster\n    namespace: rook-ceph\n    objectName: rook-ceph\n    expr: object.status.ceph.health == \"HEALTH_OK\"\n    timeout: 1s\n"

// cephIs is a cluster whose one CephCluster reports health.
func cephIs(state string) func(health.Check) ([]health.Object, error) {
	return func(health.Check) ([]health.Object, error) {
		return []health.Object{{Name: "rook-ceph/rook-ceph", Content: map[string]any{"status": map[string]any{"ceph": map[string]any{"health": state}}}}}, nil
	}
}

func TestApply_AFailingHealthCheckHoldsTheRolloutWithNoNodeTouched(t *testing.T) {
	l := newApplyLab(t, map[string]string{"USER": "alice"}, nil)
	addMotd(l)
	l.files["talops.yaml"] = append(l.files["talops.yaml"], []byte(cephHealthCheck)...)
	l.h.deps.GateInterval = 1

	k := &labKube{l: l, objects: cephIs("HEALTH_WARN")}

	err := l.apply("--kubeconfig", withKube(t, l, k))
	if err == nil {
		t.Fatal("apply went on with Ceph unhealthy")
	}

	want := `talops: apply stopped before the next node: health check ceph held the rollout before k8s-node4: after 1s: CephCluster rook-ceph/rook-ceph: object.status.ceph.health = "HEALTH_WARN"`
	if !strings.Contains(l.h.stderr.String(), want) {
		t.Errorf("stderr:\n%s\nwant:\n%s", l.h.stderr.String(), want)
	}

	if l.nodes["k8s-node4"].Boots() != 0 || slices.Contains(k.events, "drain k8s-node4 within 5m0s, after 0 node calls") {
		t.Errorf("k8s-node4 was touched: boots %d, events %q", l.nodes["k8s-node4"].Boots(), k.events)
	}
}

func TestApply_HealthChecksAreReadBeforeTheNodeAndAfterTheLast(t *testing.T) {
	l := newApplyLab(t, map[string]string{"USER": "alice"}, nil)
	addMotd(l)
	l.files["talops.yaml"] = append(l.files["talops.yaml"], []byte(cephHealthCheck)...)

	k := &labKube{l: l, objects: cephIs("HEALTH_OK")}

	if err := l.apply("--kubeconfig", withKube(t, l, k)); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	want := []string{
		"lock homelab for alice@build-host",
		"health ceph after 0 node calls",
		"drain k8s-node4 within 5m0s, after 0 node calls",
		"uncordon k8s-node4 after 1 boots",
		"health ceph after 1 node calls",
		"release homelab after 1 node calls",
	}
	if !slices.Equal(k.events, want) {
		t.Errorf("Kubernetes calls:\n%s\nwant:\n%s", strings.Join(k.events, "\n"), strings.Join(want, "\n"))
	}
}
