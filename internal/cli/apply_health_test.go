package cli_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/health"
	"github.com/talops/talops/internal/testlab"
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

// The plan a reviewer reads says what apply will check, and its hash moves with the checks.
func TestPlan_ShowsTheHealthChecksAndItsHashBindsThem(t *testing.T) {
	t.Parallel()

	base := testlab.Files(t)

	plan := func(t *testing.T, head cluster.MapFiles, format string) string {
		t.Helper()

		h := newHarness(t, head, nil)
		h.dirs["base"] = base
		_ = h.run("plan", "--dir", "examples/homelab", "--against", "base", "--offline", "--format", format)

		return h.stdout.String()
	}

	head := testlab.Files(t)
	head["talops.yaml"] = append(head["talops.yaml"], []byte(cephHealthCheck)...)

	want := `ceph: CephCluster rook-ceph/rook-ceph (ceph.rook.io/v1), object.status.ceph.health == "HEALTH_OK", within 1s`

	text := plan(t, head, "text")
	if !strings.Contains(text, "health checks, before each node that changes and after the last:\n    "+want+"\n") {
		t.Errorf("the text plan does not list the check:\n%s", text)
	}

	md := plan(t, head, "markdown")
	if !strings.Contains(md, "Health checks, before each node that changes and after the last:\n- "+want) {
		t.Errorf("the markdown plan does not list the check:\n%s", md)
	}

	hashOf := func(js string) string {
		var p struct{ Hash string }
		if err := json.Unmarshal([]byte(js), &p); err != nil {
			t.Fatalf("%v\n%s", err, js)
		}

		return p.Hash
	}

	with := hashOf(plan(t, head, "json"))

	looser := testlab.Files(t)
	looser["talops.yaml"] = append(looser["talops.yaml"], []byte(strings.Replace(cephHealthCheck, "timeout: 1s", "timeout: 2h", 1))...)

	if without := hashOf(plan(t, base, "json")); with == without || with == hashOf(plan(t, looser, "json")) {
		t.Errorf("the hash does not bind the checks: %s", with)
	}
}
