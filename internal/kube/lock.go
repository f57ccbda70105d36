package kube

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// leaseNamespace holds the apply locks: every cluster has it, and only admins write it.
	leaseNamespace = "kube-system"
	// takeAttempts bounds how often Lock re-reads a Lease that changed between its read
	// and its write before giving up.
	takeAttempts = 3
)

// Lock takes the cluster's apply lock, the Lease kube-system/talops-apply-<cluster>, for
// holder: when there is none, when its holder stopped renewing it (an apply that died:
// this process saw the Lease unchanged for its whole duration, whatever the times written
// in it say) or when holder already has it. Otherwise the error is a *LockedError naming who holds
// it, since when and when it lapses. Writes carry the resourceVersion read, so of two
// applies taking it at once one wins and the other, re-reading, is refused.
//
// The lock is renewed every RenewInterval until release is called or ctx ends. When it
// is lost (taken over, deleted, or not renewed in time for it to stay unexpired) lost,
// when set, is called once with why, at once: the holder stops before its next change.
// release stops the renewal and deletes the Lease if it is still holder's; it reports an
// error when the lock was lost while held.
func (c *Client) Lock(ctx context.Context, cluster, holder string, lost func(error)) (release func(context.Context) error, err error) {
	if holder == "" {
		return nil, errors.New("take the apply lock: no holder named")
	}

	name := LeaseName(cluster)

	lease, at, err := c.take(ctx, cluster, name, holder)
	if err != nil {
		return nil, err
	}

	renewCtx, stop := context.WithCancel(ctx)
	h := &hold{c: c, cluster: cluster, holder: holder, lease: lease, renewed: at, stop: stop, done: make(chan struct{}), onLost: lost}

	go h.renew(renewCtx)

	return h.release, nil
}

// take writes holder into the Lease, creating it if absent, or returns a *LockedError;
// at is when, by this process's clock, the write that took it was sent. A Lease another
// holder has is watched (watch.go) until it is seen renewed, and refused, or seen
// unchanged for its whole duration, and taken over: a wait of at most that duration.
func (c *Client) take(ctx context.Context, cluster, name, holder string) (lease *coordinationv1.Lease, at time.Time, err error) {
	leases := leaseKind.in(c.leases.dyn, leaseNamespace)

	var (
		w         watch
		conflicts int
	)

	for conflicts < takeAttempts {
		cur, err := leases.get(ctx, name)
		now := c.Now()

		if apierrors.IsNotFound(err) {
			fresh := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: leaseNamespace}}
			c.claim(fresh, holder, now)

			created, err := leases.create(ctx, fresh)
			if apierrors.IsAlreadyExists(err) {
				conflicts++

				continue // another apply created it first: read what it wrote
			}

			if err != nil {
				return nil, time.Time{}, fmt.Errorf("take the apply lock %s/%s: %w", leaseNamespace, name, err)
			}

			return created, now, nil
		}

		if err != nil {
			return nil, time.Time{}, fmt.Errorf("read the apply lock %s/%s: %w", leaseNamespace, name, err)
		}

		if heldByOther(cur, holder) {
			locked, wait := w.judge(cur, cluster, now)
			if locked != nil {
				return nil, time.Time{}, locked
			}

			if wait > 0 {
				if err := pause(ctx, wait); err != nil {
					return nil, time.Time{}, fmt.Errorf("take the apply lock %s/%s: %w", leaseNamespace, name, err)
				}

				continue
			}
		}

		next := cur.DeepCopy()
		c.claim(next, holder, now)

		updated, err := leases.update(ctx, next)
		if apierrors.IsConflict(err) {
			conflicts++

			continue // it changed since the read: someone may have taken it, read again
		}

		if err != nil {
			return nil, time.Time{}, fmt.Errorf("take the apply lock %s/%s: %w", leaseNamespace, name, err)
		}

		return updated, now, nil
	}

	return nil, time.Time{}, fmt.Errorf("take the apply lock %s/%s: it changed under every one of %d attempts", leaseNamespace, name, takeAttempts)
}

// pause waits for d, or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()

	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// claim writes a fresh hold of holder from now into the Lease's spec.
func (c *Client) claim(lease *coordinationv1.Lease, holder string, now time.Time) {
	t := metav1.NewMicroTime(now)
	seconds := c.leaseSeconds()
	transitions := int32(0)

	if lease.Spec.LeaseTransitions != nil {
		transitions = *lease.Spec.LeaseTransitions
	}

	if lease.Spec.HolderIdentity != nil && *lease.Spec.HolderIdentity != holder {
		transitions++
	}

	lease.Spec = coordinationv1.LeaseSpec{
		HolderIdentity:       &holder,
		LeaseDurationSeconds: &seconds,
		AcquireTime:          &t,
		RenewTime:            &t,
		LeaseTransitions:     &transitions,
	}
}

// leaseSeconds is LeaseDuration in the Lease's whole seconds, rounded up, at least one.
func (c *Client) leaseSeconds() int32 {
	s := math.Ceil(c.LeaseDuration.Seconds())

	return int32(max(1, min(s, math.MaxInt32)))
}

// heldByOther reports whether the Lease names a holder other than holder. A Lease without
// a holder is free.
func heldByOther(lease *coordinationv1.Lease, holder string) bool {
	h := lease.Spec.HolderIdentity

	return h != nil && *h != "" && *h != holder
}
