package kube_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/talops/talops/internal/kube"
)

// skews are the clocks of a candidate for the lock: five minutes ahead of the holder's
// and five minutes behind.
var skews = []struct {
	name string
	by   time.Duration
}{
	{"ahead", 5 * time.Minute},
	{"behind", -5 * time.Minute},
}

// skewed is the clock of a runner off by d; time.Time.Add keeps the monotonic reading, as
// a wall clock set wrong does.
func skewed(d time.Duration) func() time.Time {
	return func() time.Time { return time.Now().Add(d) }
}

// deadLease is what an apply that died leaves: a Lease for seconds whose renew time, by
// its holder's clock, is renewed, and that nobody renews again.
func deadLease(holder string, renewed time.Time, seconds int) map[string]any {
	at := renewed.UTC().Format("2006-01-02T15:04:05.000000Z07:00")

	return map[string]any{
		"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
		"metadata": map[string]any{"name": kube.LeaseName("lab"), "namespace": "kube-system", "resourceVersion": "1", "uid": "dead"},
		"spec": map[string]any{
			"holderIdentity": holder, "leaseDurationSeconds": seconds,
			"acquireTime": at, "renewTime": at, "leaseTransitions": 0,
		},
	}
}

func TestLock_ACandidateWhoseClockIsOffNeverTakesALiveLease(t *testing.T) {
	t.Parallel()

	for _, skew := range skews {
		t.Run(skew.name, func(t *testing.T) {
			t.Parallel()

			api := &leaseAPI{}
			holder := lockClient(t, api)

			release, err := holder.Lock(context.Background(), "lab", "ci run 7 #01020304", nil)
			if err != nil {
				t.Fatal(err)
			}

			defer func() { _ = release(context.Background()) }()

			candidate := lockClient(t, api)
			candidate.Now = skewed(skew.by)

			_, err = candidate.Lock(context.Background(), "lab", "laptop #05060708", nil)

			var locked *kube.LockedError
			if !errors.As(err, &locked) || locked.Holder != "ci run 7 #01020304" {
				t.Fatalf("a candidate %s by %s: Lock = %v, want refused naming the live holder", skew.name, skew.by.Abs(), err)
			}
		})
	}
}

func TestLock_ACandidateWhoseClockIsOffTakesADeadLeaseOnceItSawItUnchangedForItsDuration(t *testing.T) {
	t.Parallel()

	for _, skew := range skews {
		t.Run(skew.name, func(t *testing.T) {
			t.Parallel()

			// Its holder's last renewal was just now by the holder's (right) clock: to the
			// candidate it is five minutes old or five minutes in the future.
			api := &leaseAPI{lease: deadLease("apply that died", time.Now(), 1)}
			api.rv = 1

			candidate := lockClient(t, api)
			candidate.Now = skewed(skew.by)

			start := time.Now()

			release, err := candidate.Lock(context.Background(), "lab", "laptop #05060708", nil)
			if err != nil {
				t.Fatalf("a candidate %s by %s: Lock = %v, want the dead Lease taken over", skew.name, skew.by.Abs(), err)
			}

			defer func() { _ = release(context.Background()) }()

			if took := time.Since(start); took < time.Second {
				t.Errorf("taken over after %s, want after the Lease's whole duration (1s) seen unchanged", took)
			}

			api.mu.Lock()
			spec := api.lease["spec"].(map[string]any)
			api.mu.Unlock()

			if spec["holderIdentity"] != "laptop #05060708" {
				t.Errorf("holder after the takeover %v, want the candidate", spec["holderIdentity"])
			}
		})
	}
}

func TestLock_ALeaseRenewedWhileWatchedIsRefusedBeforeItsDurationIsOut(t *testing.T) {
	t.Parallel()

	api := &leaseAPI{}
	holder := lockClient(t, api)
	holder.LeaseDuration, holder.RenewInterval = 30*time.Second, 50*time.Millisecond

	release, err := holder.Lock(context.Background(), "lab", "ci run 7 #01020304", nil)
	if err != nil {
		t.Fatal(err)
	}

	defer func() { _ = release(context.Background()) }()

	start := time.Now()

	_, err = lockClient(t, api).Lock(context.Background(), "lab", "laptop #05060708", nil)

	var locked *kube.LockedError
	if !errors.As(err, &locked) {
		t.Fatalf("Lock = %v, want refused", err)
	}

	// The holder renews every 50ms: the candidate sees it within a look (30s/8, at most 2s).
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("refused after %s, want as soon as a renewal was seen", took)
	}

	if left := time.Until(locked.Expires); left <= 25*time.Second || left > 30*time.Second {
		t.Errorf("the refusal says the lock lapses in %s, want the Lease's 30s from when the renewal was seen", left)
	}
}

func TestLock_WaitsForADeadLeaseEndWithTheContext(t *testing.T) {
	t.Parallel()

	api := &leaseAPI{lease: deadLease("apply that died", time.Now(), 3600)}
	api.rv = 1

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()

	_, err := lockClient(t, api).Lock(ctx, "lab", "laptop #05060708", nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Lock under a 200ms context of an hour's Lease = %v, want the context's end", err)
	}
}

func TestLock_AClockThatDoesNotMoveEndsTheWaitInARefusal(t *testing.T) {
	t.Parallel()

	api := &leaseAPI{lease: deadLease("apply that died", time.Now(), 1)}
	api.rv = 1

	frozen := time.Now()
	c := lockClient(t, api)
	c.Now = func() time.Time { return frozen }

	_, err := c.Lock(context.Background(), "lab", "laptop #05060708", nil)

	var locked *kube.LockedError
	if !errors.As(err, &locked) || locked.Holder != "apply that died" {
		t.Errorf("Lock with a frozen clock = %v, want refused after a bounded number of looks", err)
	}

	if rv, _ := strconv.Atoi(api.lease["metadata"].(map[string]any)["resourceVersion"].(string)); rv != 1 {
		t.Errorf("the Lease was written (resourceVersion %d)", rv)
	}
}
