package rollout_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/talops/talops/internal/applied"
	"github.com/talops/talops/internal/health"
	"github.com/talops/talops/internal/rollout"
)

// cephHealth is a fake of the cluster's objects: one CephCluster whose health the test
// (or a node's apply) sets.
type cephHealth struct {
	mu     sync.Mutex
	health string
	reads  int
}

func (c *cephHealth) set(h string) {
	c.mu.Lock()
	defer c.mu.Unlock()

	c.health = h
}

func (c *cephHealth) HealthObjects(_ context.Context, _ health.Check) ([]health.Object, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	c.reads++

	return []health.Object{{Name: "rook-ceph/rook-ceph", Content: map[string]any{"status": map[string]any{"ceph": map[string]any{"health": c.health}}}}}, nil
}

func cephCheck(t *testing.T, timeout time.Duration) health.Check {
	t.Helper()

	x, err := health.Compile(`object.status.ceph.health == "HEALTH_OK"`)
	if err != nil {
		t.Fatal(err)
	}

	return health.Check{Name: "ceph", APIVersion: "ceph.rook.io/v1", Kind: "CephCluster", Namespace: "rook-ceph", ObjectName: "rook-ceph", Expr: x, Timeout: timeout}
}

func TestRun_AFailingHealthCheckHoldsTheRolloutBeforeTheNextNodeNamingObjectAndValue(t *testing.T) {
	d := &healthyNodes{}
	ceph := &cephHealth{health: "HEALTH_OK"}

	// The first node's change leaves Ceph recovering, and it stays so.
	d.onApply = func(string) { ceph.set("HEALTH_WARN") }

	o := options
	o.Health, o.HealthReader = []health.Check{cephCheck(t, 50*time.Millisecond)}, ceph

	r := rollout.Run(context.Background(), d, "lab", "hash", workers("w1", "w2", "w3"), o)

	if !slices.Equal(d.applied, []string{"w1"}) {
		t.Errorf("applied %v, want only w1", d.applied)
	}

	want := `health check ceph held the rollout before w2: after 50ms: CephCluster rook-ceph/rook-ceph: object.status.ceph.health = "HEALTH_WARN"`
	if r.Stopped != want {
		t.Errorf("stopped %q\nwant    %q", r.Stopped, want)
	}

	if r.Nodes[1].Outcome != applied.NotAttempted || r.Nodes[2].Outcome != applied.NotAttempted {
		t.Errorf("outcomes %+v", r.Nodes)
	}
}

func TestRun_AHealthCheckThatBecomesTrueWithinItsTimeoutLetsTheRolloutGoOn(t *testing.T) {
	d := &healthyNodes{}
	ceph := &cephHealth{health: "HEALTH_OK"}

	// Each change leaves Ceph recovering for a moment.
	d.onApply = func(string) {
		ceph.set("HEALTH_WARN")
		time.AfterFunc(30*time.Millisecond, func() { ceph.set("HEALTH_OK") })
	}

	var lines []string

	o := options
	o.Health, o.HealthReader = []health.Check{cephCheck(t, time.Second)}, ceph
	o.Progress = func(p rollout.Progress) { lines = append(lines, p.String()) }

	r := rollout.Run(context.Background(), d, "lab", "hash", workers("w1", "w2"), o)

	if !slices.Equal(d.applied, []string{"w1", "w2"}) || r.Stopped != "" || r.Unhealthy != "" {
		t.Fatalf("applied %v, stopped %q, unhealthy %q", d.applied, r.Stopped, r.Unhealthy)
	}

	if !slices.ContainsFunc(lines, func(l string) bool {
		return strings.HasPrefix(l, "health check ceph before w2: waiting up to 1s (CephCluster rook-ceph/rook-ceph: object.status.ceph.health = \"HEALTH_WARN\")")
	}) {
		t.Errorf("no progress line for the wait:\n%s", strings.Join(lines, "\n"))
	}
}

func TestRun_AnUnhealthyClusterBeforeTheFirstNodeChangesNothing(t *testing.T) {
	d := &healthyNodes{}
	ceph := &cephHealth{health: "HEALTH_ERR"}

	o := options
	o.Health, o.HealthReader = []health.Check{cephCheck(t, 20*time.Millisecond)}, ceph

	r := rollout.Run(context.Background(), d, "lab", "hash", workers("w1"), o)

	if len(d.applied) != 0 || !strings.HasPrefix(r.Stopped, "health check ceph held the rollout before w1:") {
		t.Errorf("applied %v, stopped %q", d.applied, r.Stopped)
	}
}

func TestRun_AHealthCheckFailingAfterTheLastNodeIsReported(t *testing.T) {
	d := &healthyNodes{}
	ceph := &cephHealth{health: "HEALTH_OK"}

	d.onApply = func(address string) {
		if address == "w2" {
			ceph.set("HEALTH_WARN")
		}
	}

	o := options
	o.Health, o.HealthReader = []health.Check{cephCheck(t, 20*time.Millisecond)}, ceph

	r := rollout.Run(context.Background(), d, "lab", "hash", workers("w1", "w2"), o)

	if !slices.Equal(d.applied, []string{"w1", "w2"}) || !strings.HasPrefix(r.Unhealthy, "health check ceph held the rollout after the last node:") {
		t.Errorf("applied %v, unhealthy %q", d.applied, r.Unhealthy)
	}
}

func TestRun_ADryRunReadsNoHealthCheck(t *testing.T) {
	ceph := &cephHealth{health: "HEALTH_ERR"}

	o := options
	o.DryRun = true
	o.Health, o.HealthReader = []health.Check{cephCheck(t, 20*time.Millisecond)}, ceph

	rollout.Run(context.Background(), &healthyNodes{}, "lab", "hash", workers("w1"), o)

	if ceph.reads != 0 {
		t.Errorf("a dry run read the checks %d times", ceph.reads)
	}
}

// flakyHealth answers HEALTH_WARN once, then fails every read.
type flakyHealth struct{ reads int }

func (f *flakyHealth) HealthObjects(context.Context, health.Check) ([]health.Object, error) {
	f.reads++
	if f.reads == 1 {
		return (&cephHealth{health: "HEALTH_WARN"}).HealthObjects(context.Background(), health.Check{})
	}

	return nil, errors.New("rate: Wait(n=1) would exceed context deadline")
}

func TestRun_AFailedReadAfterAnAnswerStillNamesTheObjectAndValue(t *testing.T) {
	o := options
	o.Health, o.HealthReader = []health.Check{cephCheck(t, 30*time.Millisecond)}, &flakyHealth{}

	r := rollout.Run(context.Background(), &healthyNodes{}, "lab", "hash", workers("w1"), o)

	want := `CephCluster rook-ceph/rook-ceph: object.status.ceph.health = "HEALTH_WARN" (the next read failed: rate: Wait(n=1) would exceed context deadline)`
	if !strings.HasSuffix(r.Stopped, want) {
		t.Errorf("stopped %q\nwant the suffix %q", r.Stopped, want)
	}
}
