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
// holder: when there is none, when its holder stopped renewing it (an apply that died)
// or when holder already has it. Otherwise the error is a *LockedError naming who holds
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

	lease, err := c.take(ctx, cluster, name, holder)
	if err != nil {
		return nil, err
	}

	renewCtx, stop := context.WithCancel(ctx)
	h := &hold{c: c, cluster: cluster, holder: holder, lease: lease, stop: stop, done: make(chan struct{}), onLost: lost}

	go h.renew(renewCtx)

	return h.release, nil
}

// take writes holder into the Lease, creating it if absent, or returns a *LockedError.
func (c *Client) take(ctx context.Context, cluster, name, holder string) (*coordinationv1.Lease, error) {
	leases := leaseKind.in(c.leases.dyn, leaseNamespace)

	for range takeAttempts {
		cur, err := leases.get(ctx, name)
		now := c.Now()

		if apierrors.IsNotFound(err) {
			lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: leaseNamespace}}
			c.claim(lease, holder, now)

			created, err := leases.create(ctx, lease)
			if apierrors.IsAlreadyExists(err) {
				continue // another apply created it first: read what it wrote
			}

			if err != nil {
				return nil, fmt.Errorf("take the apply lock %s/%s: %w", leaseNamespace, name, err)
			}

			return created, nil
		}

		if err != nil {
			return nil, fmt.Errorf("read the apply lock %s/%s: %w", leaseNamespace, name, err)
		}

		if locked := heldByOther(cur, cluster, holder, now); locked != nil {
			return nil, locked
		}

		next := cur.DeepCopy()
		c.claim(next, holder, now)

		updated, err := leases.update(ctx, next)
		if apierrors.IsConflict(err) {
			continue // it changed since the read: someone may have taken it, read again
		}

		if err != nil {
			return nil, fmt.Errorf("take the apply lock %s/%s: %w", leaseNamespace, name, err)
		}

		return updated, nil
	}

	return nil, fmt.Errorf("take the apply lock %s/%s: it changed under every one of %d attempts", leaseNamespace, name, takeAttempts)
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

// heldByOther is the refusal when the Lease is held, unexpired, by someone but holder.
// A Lease without a holder is free; one without times has lapsed.
func heldByOther(lease *coordinationv1.Lease, cluster, holder string, now time.Time) *LockedError {
	spec := lease.Spec
	if spec.HolderIdentity == nil || *spec.HolderIdentity == "" || *spec.HolderIdentity == holder {
		return nil
	}

	var since, renewed time.Time

	if spec.AcquireTime != nil {
		since = spec.AcquireTime.Time
	}

	renewed = since
	if spec.RenewTime != nil {
		renewed = spec.RenewTime.Time
	}

	if since.IsZero() {
		since = renewed
	}

	var seconds int32
	if spec.LeaseDurationSeconds != nil {
		seconds = *spec.LeaseDurationSeconds
	}

	expires := renewed.Add(time.Duration(seconds) * time.Second)
	if renewed.IsZero() || !now.Before(expires) {
		return nil
	}

	return &LockedError{Cluster: cluster, Holder: *spec.HolderIdentity, Since: since, Expires: expires}
}
