//go:build realkube

package kube_test

import (
	"context"
	"testing"
	"time"

	"github.com/talops/talops/internal/applied"
)

func TestProgress_IsKeptBesideTheLockAndReadBack(t *testing.T) {
	c, _ := client(t)
	ctx := context.Background()

	if p, err := c.ReadProgress(ctx, "progress-lab"); p != nil || err != nil {
		t.Fatalf("before any apply: %+v, %v", p, err)
	}

	at := time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC)
	first := applied.Progress{PlanHash: "abc", Done: []string{"w1"}, StoppedAt: "w2", Why: "health check ceph held the rollout before w2", At: at}

	if err := c.WriteProgress(ctx, "progress-lab", first); err != nil {
		t.Fatal(err)
	}

	second := applied.Progress{PlanHash: "abc", Done: []string{"w1", "w2"}, At: at.Add(time.Hour)}
	if err := c.WriteProgress(ctx, "progress-lab", second); err != nil {
		t.Fatal(err)
	}

	got, err := c.ReadProgress(ctx, "progress-lab")
	if err != nil || got == nil || got.StoppedAt != "" || len(got.Done) != 2 || !got.At.Equal(second.At) {
		t.Errorf("read back %+v, %v", got, err)
	}

	if got.Resumes("abc") {
		t.Error("a finished rollout resumes")
	}
}
