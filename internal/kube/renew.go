package kube

import (
	"context"
	"fmt"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// hold is a taken apply lock: its renewal and its release.
type hold struct {
	c       *Client
	cluster string
	holder  string

	// lease is the last version written; the renewal goroutine owns it (and lost) until
	// done is closed, release after.
	lease *coordinationv1.Lease
	// renewed is when the last write that reached the API was sent, by this process's
	// clock: the Lease holds for its duration from then at least, however the other
	// candidates' clocks run, since each times it from when it saw that write.
	renewed time.Time
	lost    error
	// onLost, when set, is told at once when the lock is lost.
	onLost func(error)
	// failed is the last error of a renewal that did not reach the API ("": the last one
	// did), kept to say why the lock lapsed.
	failed error

	stop context.CancelFunc
	done chan struct{}

	once sync.Once
	err  error
}

// renew rewrites the Lease's renewTime every RenewInterval until ctx ends or the lock
// is lost. A failed write is tried again at the next tick: one missed renewal is not
// yet a lost lock, but one that leaves the Lease to expire before the next tick is (an
// expired Lease may be taken by another apply while this one goes on).
func (h *hold) renew(ctx context.Context) {
	defer close(h.done)

	tick := time.NewTicker(h.c.renewEvery())
	defer tick.Stop()

	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}

		err := h.renewOnce(ctx)
		if err == nil {
			err = h.lapsing()
		}

		if err != nil {
			h.lost = err

			if h.onLost != nil {
				h.onLost(err)
			}

			return
		}
	}
}

// lapsing is the error of a lock whose renewals failed so long that it expires before
// the next one (nil while it holds).
func (h *hold) lapsing() error {
	if h.failed == nil {
		return nil
	}

	seconds := h.lease.Spec.LeaseDurationSeconds
	if seconds == nil {
		return nil
	}

	expires := h.renewed.Add(time.Duration(*seconds) * time.Second)
	if h.c.Now().Add(h.c.renewEvery()).Before(expires) {
		return nil
	}

	return &LapsedError{Err: fmt.Errorf("the apply lock of cluster %s could not be renewed since %s and lapses at %s (%w)",
		h.cluster, h.renewed.UTC().Format(time.RFC3339), expires.UTC().Format(time.RFC3339), h.failed)}
}

// LapsedError is an apply lock lost because its renewals did not reach the API in time,
// not because another holder took it or it was deleted: an API server that restarts (its
// own upgrade, on a single control plane) makes one.
type LapsedError struct{ Err error }

func (e *LapsedError) Error() string { return e.Err.Error() }

func (e *LapsedError) Unwrap() error { return e.Err }

// renewOnce writes one renewal. The error is only for a lock that is no longer ours;
// a failure to reach the API is kept in h.failed and left to the next tick.
func (h *hold) renewOnce(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, h.c.renewEvery())
	defer cancel()

	leases := leaseKind.in(h.c.leases.dyn, leaseNamespace)

	next := h.lease.DeepCopy()
	at := h.c.Now()
	now := metav1.NewMicroTime(at)
	next.Spec.RenewTime = &now

	updated, err := leases.update(ctx, next)
	if err == nil {
		h.lease, h.renewed, h.failed = updated, at, nil

		return nil
	}

	if !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
		h.failed = err

		return nil
	}

	// Someone else wrote the Lease: it is still ours only if it still names us.
	cur, err := leases.get(ctx, h.lease.Name)
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("the apply lock of cluster %s was deleted while held", h.cluster)
	}

	if err != nil {
		h.failed = err

		return nil
	}

	if cur.Spec.HolderIdentity == nil || *cur.Spec.HolderIdentity != h.holder {
		by := "nobody"
		if cur.Spec.HolderIdentity != nil && *cur.Spec.HolderIdentity != "" {
			by = *cur.Spec.HolderIdentity
		}

		return fmt.Errorf("the apply lock of cluster %s was taken over by %s while held", h.cluster, by)
	}

	h.lease = cur

	return nil
}

// release stops the renewal and deletes the Lease if it is still ours. Calling it again
// returns the first call's result.
func (h *hold) release(ctx context.Context) error {
	h.once.Do(func() {
		h.stop()
		<-h.done

		if h.lost != nil {
			h.err = h.lost

			return
		}

		h.err = h.delete(ctx)
	})

	return h.err
}

// delete removes the Lease on the condition that it is the version last written, so a
// lock another apply took meanwhile is left alone.
func (h *hold) delete(ctx context.Context) error {
	leases := leaseKind.in(h.c.leases.dyn, leaseNamespace)
	lease := h.lease

	for range takeAttempts {
		err := leases.delete(ctx, lease.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{
			UID: &lease.UID, ResourceVersion: &lease.ResourceVersion,
		}})
		if err == nil || apierrors.IsNotFound(err) {
			return nil
		}

		if !apierrors.IsConflict(err) {
			return fmt.Errorf("release the apply lock %s/%s: %w", leaseNamespace, lease.Name, err)
		}

		cur, err := leases.get(ctx, lease.Name)
		if apierrors.IsNotFound(err) {
			return nil
		}

		if err != nil {
			return fmt.Errorf("release the apply lock %s/%s: %w", leaseNamespace, lease.Name, err)
		}

		if cur.Spec.HolderIdentity == nil || *cur.Spec.HolderIdentity != h.holder {
			return nil // another apply has it now: not ours to delete
		}

		lease = cur
	}

	return fmt.Errorf("release the apply lock %s/%s: it changed under every one of %d attempts", leaseNamespace, lease.Name, takeAttempts)
}
