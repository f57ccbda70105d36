package app

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/talops/talops/internal/applied"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/rollout"
	"github.com/talops/talops/internal/talos"
)

// resume reads what the last apply of the cluster left of its rollout. When it stopped in
// the middle of this same reviewed plan, the node it stopped at is gated again if it
// already runs its desired config (a failed health gate leaves it so, and cordoned),
// instead of being skipped as done; note says so for the report. The nodes done before
// need nothing: the live plan finds them in their desired state. Any other plan starts
// from the beginning. Without a reviewed plan hash, or a Kubernetes API, nothing is read.
func resume(ctx context.Context, d *Deps, k Kube, cluster, reviewed string, todo []rollout.Step) (prev *applied.Progress, note string) {
	if k == nil || reviewed == "" {
		return nil, ""
	}

	prev, err := k.ReadProgress(ctx, cluster)
	if err != nil {
		d.note("the last rollout's progress was not read (" + talos.OneLine(err) + "): this one starts from the beginning\n")

		return nil, ""
	}

	if !prev.Resumes(reviewed) {
		return nil, ""
	}

	for i := range todo {
		if todo[i].Node.Name == prev.StoppedAt && todo[i].Node.Action == plan.Noop && !todo[i].NotSelected {
			todo[i].Regate = true
		}
	}

	note = fmt.Sprintf("resumed the rollout of this plan, which stopped at %s on %s (%s)", prev.StoppedAt, prev.At.UTC().Format(time.RFC3339), oneLineWhy(prev.Why))
	if len(prev.Done) > 0 {
		note += "; done before: " + strings.Join(prev.Done, ", ")
	}

	d.note(note + "\n")

	return prev, note
}

// record keeps the rollout's progress for the next apply of the same reviewed plan. A
// dry run, an apply without a reviewed plan hash or without a Kubernetes API keeps none.
// A failure to write it is a note: the rollout itself is what the report is about.
func record(ctx context.Context, d *Deps, k Kube, reviewed string, prev *applied.Progress, r *applied.Report, now time.Time) {
	if k == nil || reviewed == "" || r.DryRun {
		return
	}

	p := applied.Progress{PlanHash: reviewed, At: now}
	if prev != nil {
		p.Done = slices.Clone(prev.Done)
	}

	for _, n := range r.Nodes {
		switch {
		case n.Outcome == applied.Applied && !slices.Contains(p.Done, n.Name):
			p.Done = append(p.Done, n.Name)
		case (n.Outcome == applied.Failed || n.Outcome == applied.NotAttempted) && p.StoppedAt == "":
			p.StoppedAt, p.Why = n.Name, n.Detail
			if n.Outcome == applied.NotAttempted {
				p.Why = orText(r.Stopped, "not attempted")
			}
		}
	}

	if p.StoppedAt == "" && r.Unhealthy != "" {
		p.Why = r.Unhealthy
	}

	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()

	if err := k.WriteProgress(wctx, r.Cluster, p); err != nil {
		d.note("the rollout's progress was not recorded (" + talos.OneLine(err) + "): a later apply of this plan starts from the beginning\n")
	}
}

func oneLineWhy(s string) string {
	if s == "" {
		return "no reason recorded"
	}

	return strings.Join(strings.Fields(s), " ")
}

func orText(s, def string) string {
	if s == "" {
		return def
	}

	return s
}

// nowOrSystem is the injected clock, or the system's (apply's rollout has the same default).
func nowOrSystem(d *Deps) func() time.Time {
	if d.Now != nil {
		return d.Now
	}

	return time.Now
}
