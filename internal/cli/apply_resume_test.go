package cli_test

import (
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/talops/talops/internal/applied"
	"github.com/talops/talops/internal/health"
	"github.com/talops/talops/internal/testlab"
)

// A rollout a health check stopped at k8s-node4 is carried on by the next apply of the same
// reviewed plan, which says so; k8s-node3, done the first time, is not touched again.
func TestApply_TheSameReviewedPlanResumesWhereTheRolloutStopped(t *testing.T) {
	l := newApplyLab(t, map[string]string{"USER": "alice"}, nil)
	l.h.dirs["reviewed"] = testlab.On113(t)

	addMotd(l)
	l.files["nodes/k8s-node3.yaml"] = append(l.files["nodes/k8s-node3.yaml"], []byte("---\nmachine:\n  files:\n    - path: /var/etc/motd\n      permissions: 0o644\n      op: create\n      content: hello\n")...)
	l.files["talops.yaml"] = append(l.files["talops.yaml"], []byte(cephHealthCheck)...)
	l.h.deps.GateInterval = 1
	l.h.deps.Now = func() time.Time { return time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC) }

	// Ceph degrades once k8s-node3 reboots, until it recovers.
	var recovered atomic.Bool

	k := &labKube{l: l, objects: func(health.Check) ([]health.Object, error) {
		state := "HEALTH_OK"
		if l.nodes["k8s-node3"].Boots() > 0 && !recovered.Load() {
			state = "HEALTH_WARN"
		}

		return cephIs(state)(health.Check{})
	}}
	kubeconfig := withKube(t, l, k)

	if err := l.h.run("plan", "--dir", "examples/homelab", "--against", "reviewed", "--format", "json"); err != nil {
		t.Fatal(err)
	}

	var reviewed struct{ Hash string }
	if err := json.Unmarshal(l.h.stdout.Bytes(), &reviewed); err != nil {
		t.Fatal(err)
	}

	args := []string{"--kubeconfig", kubeconfig, "--plan-hash", reviewed.Hash, "--reviewed-against", "reviewed", "--format", "json"}

	if err := l.apply(args...); err == nil || !strings.Contains(err.Error(), "health check ceph held the rollout before k8s-node4") {
		t.Fatalf("the first apply: %v", err)
	}

	if l.nodes["k8s-node3"].Boots() != 1 || l.nodes["k8s-node4"].Boots() != 0 {
		t.Fatalf("boots after the first apply: node3 %d, node4 %d", l.nodes["k8s-node3"].Boots(), l.nodes["k8s-node4"].Boots())
	}

	recovered.Store(true)

	if err := l.apply(args...); err != nil {
		t.Fatalf("the second apply: %v\n%s", err, l.h.stderr.String())
	}

	var r struct{ Resumed string }
	if err := json.Unmarshal(l.h.stdout.Bytes(), &r); err != nil {
		t.Fatal(err)
	}

	want := "resumed the rollout of this plan, which stopped at k8s-node4 on 2026-12-02T03:00:00Z (health check ceph held the rollout before k8s-node4: after"
	if !strings.HasPrefix(r.Resumed, want) || !strings.HasSuffix(r.Resumed, "; done before: k8s-node3") {
		t.Errorf("resumed %q\nwant %q … done before: k8s-node3", r.Resumed, want)
	}

	if l.nodes["k8s-node3"].Boots() != 1 || l.nodes["k8s-node4"].Boots() != 1 {
		t.Errorf("boots after the second apply: node3 %d, node4 %d", l.nodes["k8s-node3"].Boots(), l.nodes["k8s-node4"].Boots())
	}

	if k.progress == nil || k.progress.StoppedAt != "" || strings.Join(k.progress.Done, ",") != "k8s-node3,k8s-node4" {
		t.Errorf("progress kept: %+v", k.progress)
	}
}

// Another reviewed plan starts from the beginning, whatever the last one left.
func TestApply_AnotherPlanDoesNotResume(t *testing.T) {
	l := newApplyLab(t, map[string]string{"USER": "alice"}, nil)
	l.h.dirs["reviewed"] = testlab.On113(t)
	addMotd(l)

	if err := l.h.run("plan", "--dir", "examples/homelab", "--against", "reviewed", "--format", "json"); err != nil {
		t.Fatal(err)
	}

	var reviewed struct{ Hash string }
	if err := json.Unmarshal(l.h.stdout.Bytes(), &reviewed); err != nil {
		t.Fatal(err)
	}

	// The last rollout, of another plan, stopped at k8s-node4 after k8s-node3.
	k := &labKube{l: l}
	last := appliedProgressStoppedAtNode4
	k.progress = &last

	if err := l.apply("--kubeconfig", withKube(t, l, k), "--plan-hash", reviewed.Hash, "--reviewed-against", "reviewed", "--format", "json"); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	if strings.Contains(l.h.stdout.String(), `"resumed"`) || strings.Contains(l.h.stderr.String(), "resumed") {
		t.Errorf("another plan resumed:\n%s\n%s", l.h.stdout.String(), l.h.stderr.String())
	}

	// What it keeps is its own: this plan, done, nothing of the other one's.
	if k.progress.PlanHash != reviewed.Hash || k.progress.StoppedAt != "" || strings.Join(k.progress.Done, ",") != "k8s-node4" {
		t.Errorf("progress kept: %+v", k.progress)
	}
}

// appliedProgressStoppedAtNode4 is a rollout of another plan that stopped at k8s-node4.
var appliedProgressStoppedAtNode4 = applied.Progress{PlanHash: "another", Done: []string{"k8s-node3"}, StoppedAt: "k8s-node4", Why: "failed"}

// The last rollout of a reviewed plan stopped at k8s-node4 after it sent its config: the
// node runs what the plan wants but stays cordoned. Another apply of that plan has nothing
// to change, and still reads the progress: it gates the node and uncordons it.
func TestApply_AReviewedPlanWithNothingLeftToChangeStillUncordonsTheNodeItStoppedAt(t *testing.T) {
	l := newApplyLab(t, map[string]string{"USER": "alice"}, nil)
	l.h.dirs["reviewed"] = testlab.On113(t)
	l.h.deps.GateInterval = 1

	if err := l.h.run("plan", "--dir", "examples/homelab", "--against", "reviewed", "--format", "json"); err != nil {
		t.Fatal(err)
	}

	var reviewed struct{ Hash string }
	if err := json.Unmarshal(l.h.stdout.Bytes(), &reviewed); err != nil {
		t.Fatal(err)
	}

	k := &labKube{l: l, progress: &applied.Progress{
		PlanHash: reviewed.Hash, Done: []string{"k8s-node3"}, StoppedAt: "k8s-node4", Why: "the drain gave up",
		At: time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC),
	}}
	kubeconfig := withKube(t, l, k)

	if err := l.apply("--kubeconfig", kubeconfig, "--plan-hash", reviewed.Hash, "--reviewed-against", "reviewed", "--format", "json"); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	if !slices.ContainsFunc(k.events, func(e string) bool { return strings.HasPrefix(e, "uncordon k8s-node4 ") }) {
		t.Errorf("k8s-node4 was not uncordoned; kube events %q\n%s", k.events, l.h.stdout.String())
	}

	if k.progress == nil || k.progress.StoppedAt != "" {
		t.Errorf("progress kept: %+v", k.progress)
	}
}
