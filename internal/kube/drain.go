package kube

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

const (
	// DefaultDrainReport is how often a drain says what it still waits for.
	DefaultDrainReport = 30 * time.Second
	// evictRetryMax caps the wait between two tries of an eviction a
	// PodDisruptionBudget refused (kubectl waits 5s each time).
	evictRetryMax = 5 * time.Second
	// deletePoll is how often a drain looks whether an evicted pod is gone (kubectl's).
	deletePoll = time.Second
)

// Drain cordons the node and evicts its pods through the Eviction API, honouring
// PodDisruptionBudgets, and gives up after timeout. It drains as talosctl does (kubectl's
// drain with --force --ignore-daemonsets --delete-emptydir-data, each pod's own grace
// period); see drainable for which pods it evicts.
//
// progress first gets "draining (N pods)" (N counts what will be evicted), then one line
// per eviction ("evicting pod ns/name", "evicted pod ns/name"), each line once, and every
// DrainReport while a pod is still there, what it waits for. An error leaves the node
// cordoned.
func (c *Client) Drain(ctx context.Context, node string, timeout time.Duration, progress func(string)) error {
	say := once(progress)

	if err := c.cordon(ctx, node, true); err != nil {
		return fmt.Errorf("cordon: %w", err)
	}

	pods, err := c.drainable(ctx, node)
	if err != nil {
		return fmt.Errorf("drain node %s: %w", node, err)
	}

	say(draining(len(pods)))

	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	var (
		wg   sync.WaitGroup
		errs = make([]error, len(pods))
		w    = &waits{since: c.Now(), why: map[string]string{}}
	)

	for i := range pods {
		wg.Go(func() { errs[i] = c.evict(dctx, &pods[i], say, w) })
	}

	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	c.reportWaits(done, w, say)

	err = errors.Join(errs...)
	if err == nil {
		return nil
	}

	if dctx.Err() != nil && ctx.Err() == nil {
		return c.timedOut(ctx, node, timeout, w, err)
	}

	return err
}

// drainable lists the pods a drain of the node evicts, mirroring kubectl's drain filters
// with the flags talosctl drains with (go-kubernetes' nodedrain: --force
// --ignore-daemonsets --delete-emptydir-data), so that a node drained by talops ends as
// one drained by talosctl:
//   - mirror pods (static pods the kubelet runs from files) are left: the API cannot
//     evict them, the kubelet owns them;
//   - pods of a DaemonSet that still exists are left: its controller would put them back
//     on the cordoned node at once (kubectl ignores them). One whose DaemonSet is gone is
//     evicted, as --force does: nothing would recreate it anywhere;
//   - pods with emptyDir volumes are evicted, their data lost with them
//     (--delete-emptydir-data): a node about to reboot or be upgraded loses it anyway;
//   - pods no controller manages are evicted too (--force), though nothing recreates
//     them: a reboot would kill them just the same, and a drain that refuses them would
//     block every rollout of a node running one;
//   - pods already terminating are waited for like the others (kubectl's
//     --skip-wait-for-delete-timeout is off).
func (c *Client) drainable(ctx context.Context, node string) ([]corev1.Pod, error) {
	list, err := podKind.in(c.api.dyn, metav1.NamespaceAll).list(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
	if err != nil {
		return nil, fmt.Errorf("list pods to evict: %w", err)
	}

	var out []corev1.Pod

	for _, p := range list {
		if _, mirror := p.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
			continue
		}

		skip, err := c.daemonSetPod(ctx, &p)
		if err != nil {
			return nil, fmt.Errorf("list pods to evict: %w", err)
		}

		if !skip {
			out = append(out, p)
		}
	}

	return out, nil
}

// daemonSetPod tells whether a drain leaves the pod to its DaemonSet (kubectl's
// daemonSetFilter with --ignore-daemonsets --force): a finished pod, or one whose
// DaemonSet is gone, is evicted.
func (c *Client) daemonSetPod(ctx context.Context, p *corev1.Pod) (bool, error) {
	ref := metav1.GetControllerOf(p)
	if ref == nil || ref.Kind != "DaemonSet" || ref.APIVersion != "apps/v1" {
		return false, nil
	}

	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return false, nil
	}

	_, err := c.api.dyn.Resource(daemonSetResource).Namespace(p.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("read DaemonSet %s/%s of pod %s: %w", p.Namespace, ref.Name, p.Name, err)
	}

	return true, nil
}

// waits is what the pods of a drain still wait for, by "ns/name": the reason an eviction
// was refused, or "" once evicted and not yet gone.
type waits struct {
	mu    sync.Mutex
	since time.Time
	why   map[string]string
}

func (w *waits) set(pod, why string) {
	w.mu.Lock()
	defer w.mu.Unlock()

	w.why[pod] = why
}

func (w *waits) gone(pod string) {
	w.mu.Lock()
	defer w.mu.Unlock()

	delete(w.why, pod)
}

// pending is the pods still waited for, sorted, each with its reason.
func (w *waits) pending() []string {
	w.mu.Lock()
	defer w.mu.Unlock()

	out := make([]string, 0, len(w.why))

	for pod, why := range w.why {
		if why == "" {
			why = "evicted, not gone yet"
		}

		out = append(out, fmt.Sprintf("%s (%s)", pod, why))
	}

	slices.Sort(out)

	return out
}

// reportWaits says every DrainReport which pods the drain still waits for, until done.
func (c *Client) reportWaits(done <-chan struct{}, w *waits, say func(string)) {
	every := c.DrainReport
	if every <= 0 {
		every = DefaultDrainReport
	}

	tick := time.NewTicker(every)
	defer tick.Stop()

	for {
		select {
		case <-done:
			return
		case <-tick.C:
			if p := w.pending(); len(p) > 0 {
				say(fmt.Sprintf("still waiting for %s: %s so far", joinFew(p), c.Now().Sub(w.since).Round(time.Second)))
			}
		}
	}
}

// evict evicts one pod, retrying while a PodDisruptionBudget refuses it, and waits until
// it is gone (kubectl's evictPods and waitForDelete for one pod).
func (c *Client) evict(ctx context.Context, p *corev1.Pod, say func(string), w *waits) error {
	name := p.Namespace + "/" + p.Name
	w.set(name, "its eviction is not answered yet")

	delay := time.Second

	for {
		say("evicting pod " + name)

		err := c.postEviction(ctx, p)

		switch {
		case err == nil:
		case apierrors.IsNotFound(err):
			w.gone(name)

			return nil
		case apierrors.IsTooManyRequests(err):
			// A PodDisruptionBudget allows no disruption now: try again until it does or
			// the drain runs out of time.
			w.set(name, err.Error())
		case apierrors.IsForbidden(err) && apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause):
			// An eviction in a namespace being deleted is refused; a pod already being
			// deleted is only waited for, another tried again until it is.
			if p.DeletionTimestamp != nil {
				err = nil

				break
			}

			w.set(name, "its namespace is being deleted")
		default:
			// client-go's rate limiter refuses a request that would wait past the deadline:
			// that is the drain running out of time, not a refusal.
			if dl, ok := ctx.Deadline(); ok && time.Until(dl) < time.Second {
				<-ctx.Done()

				return fmt.Errorf("evict pod %s: %w", name, ctx.Err())
			}

			say(fmt.Sprintf("failed to evict pod %s: %v", name, err))

			return fmt.Errorf("evict pod %s: %w", name, err)
		}

		if err == nil {
			break
		}

		select {
		case <-ctx.Done():
			return fmt.Errorf("evict pod %s: %w", name, ctx.Err())
		case <-time.After(delay):
		}

		delay = min(2*delay, evictRetryMax)
	}

	w.set(name, "")

	if err := c.waitGone(ctx, p.Namespace, p.Name, p.UID); err != nil {
		return fmt.Errorf("wait for pod %s to terminate: %w", name, err)
	}

	w.gone(name)
	say("evicted pod " + name)

	return nil
}

// postEviction asks the API server to evict the pod: a policy/v1 Eviction POSTed to the
// pod's eviction subresource, as client-go's typed Evict does, where the server honours
// the PodDisruptionBudgets.
func (c *Client) postEviction(ctx context.Context, p *corev1.Pod) error {
	ev, err := toUnstructured(&policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace}}, policyv1.SchemeGroupVersion.WithKind("Eviction"))
	if err != nil {
		return err
	}

	_, err = c.api.dyn.Resource(podKind.resource).Namespace(p.Namespace).Create(ctx, ev, metav1.CreateOptions{}, "eviction")

	return err
}

// waitGone waits until the pod is deleted, or replaced by another of the same name.
func (c *Client) waitGone(ctx context.Context, ns, name string, uid types.UID) error {
	for {
		p, err := podKind.in(c.api.dyn, ns).get(ctx, name)
		if apierrors.IsNotFound(err) || (err == nil && p.UID != uid) {
			return nil
		}

		if err != nil && ctx.Err() == nil {
			return err
		}

		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(deletePoll):
		}
	}
}

// timedOut is the error of a drain that ran out of time: which pods are still there and
// why, the PodDisruptionBudgets that hold them when any does.
func (c *Client) timedOut(ctx context.Context, node string, timeout time.Duration, w *waits, err error) error {
	left := w.pending()

	why := fmt.Sprintf("pods still on node %s after %s: %s", node, timeout, joinFew(left))
	if held := c.heldBy(ctx, node); held != "" {
		why = held
	}

	return &DrainTimeoutError{Node: node, Timeout: timeout, Pending: left, Refusal: why, Err: err}
}

// DrainTimeoutError is a drain that ran out of time, most often because a
// PodDisruptionBudget refused an eviction until then. It is a context.DeadlineExceeded.
type DrainTimeoutError struct {
	Node    string
	Timeout time.Duration
	// Pending is the pods still on the node, "ns/name (why)", sorted.
	Pending []string
	// Refusal says why the drain did not finish: the PodDisruptionBudgets that hold pods
	// ("pod ns/db-0 is held by PodDisruptionBudget db (it allows no disruption now)"),
	// else the pods still there.
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
	err := c.cordon(ctx, node, false)
	if apierrors.IsNotFound(err) {
		return nil
	}

	if err != nil {
		return fmt.Errorf("uncordon: %w", err)
	}

	return nil
}

// cordon sets the node's spec.unschedulable, by a patch of that field alone (as kubectl
// does), so that it races with no other writer of the Node.
func (c *Client) cordon(ctx context.Context, node string, unschedulable bool) error {
	nodeAPI := nodeKind.in(c.api.dyn, "")

	n, err := nodeAPI.get(ctx, node)
	if err != nil {
		return fmt.Errorf("read node %s: %w", node, err)
	}

	if n.Spec.Unschedulable == unschedulable {
		return nil
	}

	patch := fmt.Appendf(nil, `{"spec":{"unschedulable":%t}}`, unschedulable)

	if err := nodeAPI.patch(ctx, node, types.StrategicMergePatchType, patch); err != nil {
		return fmt.Errorf("patch node %s: %w", node, err)
	}

	return nil
}

// heldBy names the pods still on the node that a PodDisruptionBudget allows no disruption
// of now: why a drain ran out of time ("" when none is).
func (c *Client) heldBy(ctx context.Context, node string) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()

	pods, err := c.drainable(ctx, node)
	if err != nil {
		return ""
	}

	var held []string

	for _, p := range pods {
		pdbs, err := pdbKind.in(c.api.dyn, p.Namespace).list(ctx, metav1.ListOptions{})
		if err != nil {
			continue
		}

		for _, pdb := range pdbs {
			sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
			if err != nil || !sel.Matches(labels.Set(p.Labels)) || pdb.Status.DisruptionsAllowed > 0 {
				continue
			}

			held = append(held, fmt.Sprintf("pod %s/%s is held by PodDisruptionBudget %s (it allows no disruption now)", p.Namespace, p.Name, pdb.Name))
		}
	}

	return joinFew(held)
}

// joinFew joins the first three items and counts the rest.
func joinFew(items []string) string {
	if len(items) > 3 {
		items = append(slices.Clone(items[:3]), fmt.Sprintf("and %d more", len(items)-3))
	}

	return strings.Join(items, "; ")
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
