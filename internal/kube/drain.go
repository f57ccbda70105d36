package kube

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/siderolabs/go-kubernetes/kubernetes/nodedrain"
	"k8s.io/kubectl/pkg/drain"
)

// Drain cordons the node and evicts its pods with go-kubernetes' nodedrain (the library
// talosctl drains with), honouring PodDisruptionBudgets, and gives up after timeout.
// progress first gets "draining (N pods)" (N counts what will be evicted), then one line per eviction, each line once:
// an eviction a PodDisruptionBudget refuses is retried and would repeat its line every
// few seconds. An error leaves the node cordoned.
func (c *Client) Drain(ctx context.Context, node string, timeout time.Duration, progress func(string)) error {
	say := once(progress)

	if err := nodedrain.Cordon(ctx, c.cs, node); err != nil {
		return fmt.Errorf("drain: %w", err)
	}

	n, err := c.evictable(ctx, node)
	if err != nil {
		return fmt.Errorf("drain node %s: %w", node, err)
	}

	say(draining(n))

	if err := nodedrain.Drain(ctx, c.cs, node, nodedrain.DrainOptions{Timeout: timeout, Progress: say}); err != nil {
		return fmt.Errorf("drain: %w", err)
	}

	return nil
}

// Uncordon makes the node schedulable again; a node that is gone is not an error.
func (c *Client) Uncordon(ctx context.Context, node string) error {
	if err := nodedrain.Uncordon(ctx, c.cs, node); err != nil {
		return fmt.Errorf("uncordon: %w", err)
	}

	return nil
}

// evictable counts the pods a drain of the node will evict or delete. It asks kubectl's
// drain helper with the settings nodedrain.Drain uses, so the count skips what the drain
// skips (DaemonSet and mirror pods) instead of guessing at it.
func (c *Client) evictable(ctx context.Context, node string) (int, error) {
	h := &drain.Helper{Ctx: ctx, Client: c.cs, Force: true, IgnoreAllDaemonSets: true, DeleteEmptyDirData: true}

	list, errs := h.GetPodsForDeletion(node)
	if len(errs) > 0 {
		return 0, fmt.Errorf("list pods to evict: %w", errs[0])
	}

	return len(list.Pods()), nil
}

// draining is the drain's first progress line.
func draining(pods int) string {
	if pods == 1 {
		return "draining (1 pod)"
	}

	return fmt.Sprintf("draining (%d pods)", pods)
}

// once passes each distinct line to progress the first time it is seen; nil progress
// drops them. The drain reports from one goroutine per pod, hence the lock.
func once(progress func(string)) func(string) {
	var (
		mu   sync.Mutex
		seen = map[string]bool{}
	)

	return func(line string) {
		if progress == nil {
			return
		}

		mu.Lock()
		defer mu.Unlock()

		if seen[line] {
			return
		}

		seen[line] = true
		progress(line)
	}
}
