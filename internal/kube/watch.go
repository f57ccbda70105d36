package kube

import (
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
)

// Bounds of the looks at a Lease another holder has: often enough to see a renewal soon
// after it happens, seldom enough to cost the API server nothing.
const (
	minLookEvery = 10 * time.Millisecond
	maxLookEvery = 2 * time.Second
)

// watch is what one candidate for the apply lock has seen of a Lease another holder has:
// the record it last read, and when this process saw that record first, by its own clock.
//
// Expiry is judged as client-go's leader election judges it: a Lease has lapsed once this
// process has seen it unchanged for the whole duration the Lease names, timed from when it
// saw it by the local clock (its monotonic reading). The renew and acquire times written
// in the Lease come from the holder's clock: compared with ours, a runner whose clock is
// ahead took over a live Lease, and one behind waited out a dead one as long as it is
// behind. A watch lives as long as one Lock call: a command takes the lock once.
type watch struct {
	record string
	seen   time.Time
	looks  int
}

// judge says what to do with a Lease held by another, read at now: refuse it (a
// *LockedError) once it changed since the last look (its holder renews it, or another took
// it); wait (a positive duration) and look again while it has not been seen unchanged for
// its duration; take it over (nil, 0) once it has. A Lease that names no duration has
// lapsed. The looks are bounded too, so a clock that does not move (or a server that
// answers slower than the clock runs) ends in a refusal, not a wait without end.
func (w *watch) judge(lease *coordinationv1.Lease, cluster string, now time.Time) (*LockedError, time.Duration) {
	var duration time.Duration
	if s := lease.Spec.LeaseDurationSeconds; s != nil && *s > 0 {
		duration = time.Duration(*s) * time.Second
	}

	record := recordOf(lease)
	if record != w.record {
		renewed := w.record != ""
		w.record, w.seen = record, now

		if renewed {
			return lockedBy(lease, cluster, now.Add(duration)), 0
		}
	}

	left := duration - now.Sub(w.seen)
	if left <= 0 {
		return nil, 0
	}

	every := lookEvery(duration)

	w.looks++
	if w.looks > int(duration/every)+3 {
		return lockedBy(lease, cluster, w.seen.Add(duration)), 0
	}

	return nil, min(left, every)
}

// lookEvery is how long a candidate waits between two looks at a Lease of duration.
func lookEvery(duration time.Duration) time.Duration {
	return max(minLookEvery, min(maxLookEvery, duration/8))
}

// recordOf is what tells one version of a Lease from the next: any write changes its
// resourceVersion; its holder and renew time say the same to a server that would not.
func recordOf(lease *coordinationv1.Lease) string {
	var holder, renewed string

	if h := lease.Spec.HolderIdentity; h != nil {
		holder = *h
	}

	if r := lease.Spec.RenewTime; r != nil {
		renewed = r.UTC().Format(time.RFC3339Nano)
	}

	return lease.ResourceVersion + "\x00" + holder + "\x00" + renewed
}

// lockedBy is the refusal naming the Lease's holder, since when it says it holds it (by
// its holder's clock), and when this process would judge it lapsed unless renewed.
func lockedBy(lease *coordinationv1.Lease, cluster string, expires time.Time) *LockedError {
	spec := lease.Spec

	var since time.Time

	switch {
	case spec.AcquireTime != nil:
		since = spec.AcquireTime.Time
	case spec.RenewTime != nil:
		since = spec.RenewTime.Time
	}

	return &LockedError{Cluster: cluster, Holder: *spec.HolderIdentity, Since: since, Expires: expires}
}
