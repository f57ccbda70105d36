package kube

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/siderolabs/go-kubernetes/kubernetes/nodedrain"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/kubectl/pkg/drain"
)

// Drain cordons the node and evicts its pods with go-kubernetes' nodedrain (the library
// talosctl drains with), honouring PodDisruptionBudgets, and gives up after timeout.
// progress first gets "draining (N pods)" (N counts what will be evicted), then one line per eviction, each line once:
// an eviction a PodDisruptionBudget refuses is retried and would repeat its line every
// few seconds. An error leaves the node cordoned.
func (c *Client) Drain(ctx context.Context, node string, timeout time.Duration, progress func(string)) error {
	var (
		mu      sync.Mutex
		refusal string // the last eviction refused, the reason a drain runs out of time
	)

	say := once(func(line string) {
		if strings.HasPrefix(line, "failed to ") {
			mu.Lock()
			refusal = line
			mu.Unlock()
		}

		if progress != nil {
			progress(line)
		}
	})

	if err := nodedrain.Cordon(ctx, c.cs, node); err != nil {
		return fmt.Errorf("cordon: %w", err)
	}

	n, err := c.evictable(ctx, node)
	if err != nil {
		return fmt.Errorf("drain node %s: %w", node, err)
	}

	say(draining(n))

	deadline := c.Now().Add(timeout)

	err = nodedrain.Drain(ctx, c.cs, node, nodedrain.DrainOptions{Timeout: timeout, Progress: say})
	if err == nil {
		return nil
	}

	// Out of time, whatever the error says: kubectl's "global timeout reached", or client-go's
	// rate limiter refusing a retry that would end past the deadline.
	if errors.Is(err, context.DeadlineExceeded) || deadline.Sub(c.Now()) < time.Second {
		mu.Lock()
		why := refusal
		mu.Unlock()

		if held := c.heldBy(ctx, node); held != "" {
			why = held
		}

		return &DrainTimeoutError{Node: node, Timeout: timeout, Refusal: why, Err: err}
	}

	return err
}

// DrainTimeoutError is a drain that ran out of time, most often because a
// PodDisruptionBudget refused an eviction until then. It is a context.DeadlineExceeded.
type DrainTimeoutError struct {
	Node    string
	Timeout time.Duration
	// Refusal is the last eviction refused ("failed to evict pod ns/db-0: Cannot evict pod
	// as it would violate the pod's disruption budget."), "" for none.
	Refusal string
	Err     error
}

func (e *DrainTimeoutError) Error() string {
	if e.Refusal != "" {
		return e.Refusal
	}

	return e.Err.Error()
}

// Is makes the error a context.DeadlineExceeded for callers that only know the context
// package.
func (e *DrainTimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

func (e *DrainTimeoutError) Unwrap() error { return e.Err }

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

// heldBy names the pods still on the node that a PodDisruptionBudget allows no disruption
// of now: why a drain ran out of time ("" when none is).
func (c *Client) heldBy(ctx context.Context, node string) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()

	h := &drain.Helper{Ctx: ctx, Client: c.cs, Force: true, IgnoreAllDaemonSets: true, DeleteEmptyDirData: true}

	list, errs := h.GetPodsForDeletion(node)
	if len(errs) > 0 {
		return ""
	}

	var held []string

	for _, p := range list.Pods() {
		pdbs, err := c.cs.PolicyV1().PodDisruptionBudgets(p.Namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			continue
		}

		for _, pdb := range pdbs.Items {
			sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
			if err != nil || !sel.Matches(labels.Set(p.Labels)) || pdb.Status.DisruptionsAllowed > 0 {
				continue
			}

			held = append(held, fmt.Sprintf("pod %s/%s is held by PodDisruptionBudget %s (it allows no disruption now)", p.Namespace, p.Name, pdb.Name))
		}
	}

	if len(held) > 3 {
		held = append(held[:3], fmt.Sprintf("and %d more", len(held)-3))
	}

	return strings.Join(held, "; ")
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
