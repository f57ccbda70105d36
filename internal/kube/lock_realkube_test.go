//go:build realkube

package kube_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/talops/talops/internal/kube"
	"github.com/talops/talops/internal/kube/kubetest"
)

// lease reads the apply lock of cluster as the server has it.
func lease(t *testing.T, env *kubetest.Env, cluster string) (*coordinationv1.Lease, error) {
	t.Helper()

	return env.Clientset.CoordinationV1().Leases("kube-system").Get(context.Background(), kube.LeaseName(cluster), metav1.GetOptions{})
}

func lock(t *testing.T, c *kube.Client, cluster, holder string) func(context.Context) error {
	t.Helper()

	release, err := c.Lock(context.Background(), cluster, holder, nil)
	if err != nil {
		t.Fatalf("Lock(%s, %s): %v", cluster, holder, err)
	}

	return release
}

func release(t *testing.T, release func(context.Context) error) {
	t.Helper()

	if err := release(context.Background()); err != nil {
		t.Errorf("release: %v", err)
	}
}

func TestLock_ASecondHolderIsRefusedNamingTheFirstAndSinceWhen(t *testing.T) {
	t.Parallel()

	c, env := client(t)
	// Renewed often, so that the second holder sees it renewed soon.
	c.RenewInterval = 200 * time.Millisecond
	before := time.Now().Truncate(time.Microsecond)
	first := lock(t, c, "lock-refused", "apply by ci run 7")
	after := time.Now()

	defer release(t, first)

	_, err := c.Lock(context.Background(), "lock-refused", "apply by laptop", nil)
	refused := time.Now()

	var locked *kube.LockedError
	if !errors.As(err, &locked) {
		t.Fatalf("second Lock = %v, want a *kube.LockedError", err)
	}

	if locked.Holder != "apply by ci run 7" || locked.Cluster != "lock-refused" {
		t.Errorf("refusal names holder %q of cluster %q, want the first apply of lock-refused", locked.Holder, locked.Cluster)
	}

	if locked.Since.Before(before) || locked.Since.After(after) {
		t.Errorf("held since %s, want between %s and %s", locked.Since, before, after)
	}

	// Lapsing is judged from when the second holder saw the first renew it.
	if !locked.Expires.After(after) || locked.Expires.After(refused.Add(kube.DefaultLeaseDuration)) {
		t.Errorf("lapses at %s, want within %s of %s", locked.Expires, kube.DefaultLeaseDuration, refused)
	}

	l, err := lease(t, env, "lock-refused")
	if err != nil {
		t.Fatal(err)
	}

	if *l.Spec.HolderIdentity != "apply by ci run 7" || *l.Spec.LeaseDurationSeconds != 60 {
		t.Errorf("lease holder %q for %ds, want the first apply for 60s", *l.Spec.HolderIdentity, *l.Spec.LeaseDurationSeconds)
	}
}

func TestLock_TheSameHolderTakesItAgain(t *testing.T) {
	t.Parallel()

	c, env := client(t)
	first := lock(t, c, "lock-same", "apply by ci run 8")
	again := lock(t, c, "lock-same", "apply by ci run 8")

	l, err := lease(t, env, "lock-same")
	if err != nil {
		t.Fatal(err)
	}

	if *l.Spec.LeaseTransitions != 0 {
		t.Errorf("lease changed hands %d times, want 0 for one holder", *l.Spec.LeaseTransitions)
	}

	release(t, again)
	release(t, first)

	if _, err := lease(t, env, "lock-same"); !apierrors.IsNotFound(err) {
		t.Errorf("lease after release: %v, want NotFound", err)
	}
}

func TestLock_ALeaseItsHolderStoppedRenewingIsTakenOver(t *testing.T) {
	t.Parallel()

	c, env := client(t)

	// What an apply that died leaves: its last renewal two minutes ago, for 1s (the new
	// holder waits that long, seeing it unchanged, before it takes it).
	holder, seconds := "apply that died", int32(1)
	renewed := metav1.NewMicroTime(time.Now().Add(-2 * time.Minute))

	_, err := env.Clientset.CoordinationV1().Leases("kube-system").Create(context.Background(), &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: kube.LeaseName("lock-expired"), Namespace: "kube-system"},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity: &holder, LeaseDurationSeconds: &seconds, AcquireTime: &renewed, RenewTime: &renewed,
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	defer release(t, lock(t, c, "lock-expired", "apply by ci run 9"))

	l, err := lease(t, env, "lock-expired")
	if err != nil {
		t.Fatal(err)
	}

	if *l.Spec.HolderIdentity != "apply by ci run 9" || *l.Spec.LeaseTransitions != 1 {
		t.Errorf("lease holder %q after %d transitions, want the new apply after 1", *l.Spec.HolderIdentity, *l.Spec.LeaseTransitions)
	}
}

func TestLock_ReleaseLetsASecondHolderTakeIt(t *testing.T) {
	t.Parallel()

	c, env := client(t)
	release(t, lock(t, c, "lock-release", "apply one"))

	if _, err := lease(t, env, "lock-release"); !apierrors.IsNotFound(err) {
		t.Errorf("lease after release: %v, want NotFound", err)
	}

	defer release(t, lock(t, c, "lock-release", "apply two"))
}

func TestLock_RenewalKeepsItPastItsDuration(t *testing.T) {
	t.Parallel()

	c, env := client(t)
	c.LeaseDuration, c.RenewInterval = time.Second, 200*time.Millisecond
	first := lock(t, c, "lock-renewed", "apply one")

	time.Sleep(2500 * time.Millisecond)

	_, err := c.Lock(context.Background(), "lock-renewed", "apply two", nil)

	var locked *kube.LockedError
	if !errors.As(err, &locked) || locked.Holder != "apply one" {
		t.Errorf("Lock after 2.5 lease durations = %v, want refused naming apply one", err)
	}

	l, err := lease(t, env, "lock-renewed")
	if err != nil {
		t.Fatal(err)
	}

	if renewedAfter := l.Spec.RenewTime.Sub(l.Spec.AcquireTime.Time); renewedAfter < 2*time.Second {
		t.Errorf("last renewed %s after it was taken, want at least 2s", renewedAfter)
	}

	release(t, first)
	defer release(t, lock(t, c, "lock-renewed", "apply two"))
}

func TestLock_AHolderThatStopsRenewingLosesItWhenItLapses(t *testing.T) {
	t.Parallel()

	c, _ := client(t)
	c.LeaseDuration, c.RenewInterval = time.Second, time.Hour
	first := lock(t, c, "lock-lapsed", "apply one")

	defer func() { _ = first(context.Background()) }()

	time.Sleep(1500 * time.Millisecond)

	defer release(t, lock(t, c, "lock-lapsed", "apply two"))
}

func TestLock_ReleaseAfterATakeoverLeavesTheNewHoldersLease(t *testing.T) {
	t.Parallel()

	c, env := client(t)
	c.RenewInterval = 100 * time.Millisecond
	first := lock(t, c, "lock-stolen", "apply one")

	l, err := lease(t, env, "lock-stolen")
	if err != nil {
		t.Fatal(err)
	}

	intruder := "someone with kubectl"
	l.Spec.HolderIdentity = &intruder

	if _, err := env.Clientset.CoordinationV1().Leases("kube-system").Update(context.Background(), l, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	time.Sleep(500 * time.Millisecond) // a few renewals, which find it is no longer theirs

	if err := first(context.Background()); err == nil {
		t.Error("release after losing the lock reported nothing")
	}

	l, err = lease(t, env, "lock-stolen")
	if err != nil {
		t.Fatalf("the new holder's lease: %v", err)
	}

	if *l.Spec.HolderIdentity != intruder {
		t.Errorf("lease holder %q, want the new holder's", *l.Spec.HolderIdentity)
	}
}

func TestLock_OfApplicantsAtOnceExactlyOneWins(t *testing.T) {
	t.Parallel()

	c, _ := client(t)
	// Renewed often: the applicants that lost see it renewed soon, and are refused.
	c.RenewInterval = 200 * time.Millisecond

	const applicants = 5

	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		won      []func(context.Context) error
		refused  int
		failures []error
	)

	for i := range applicants {
		wg.Go(func() {
			rel, err := c.Lock(context.Background(), "lock-race", "apply "+string(rune('a'+i)), nil)

			var locked *kube.LockedError

			mu.Lock()
			defer mu.Unlock()

			switch {
			case err == nil:
				won = append(won, rel)
			case errors.As(err, &locked):
				refused++
			default:
				failures = append(failures, err)
			}
		})
	}

	wg.Wait()

	for _, rel := range won {
		release(t, rel)
	}

	if len(won) != 1 || refused != applicants-1 || len(failures) > 0 {
		t.Errorf("%d won, %d refused, failures %v; want 1 won and %d refused", len(won), refused, failures, applicants-1)
	}
}

// skewedClient is a client of the shared server whose clock is off by d (time.Time.Add
// keeps the monotonic reading, as a wall clock set wrong does).
func skewedClient(t *testing.T, d time.Duration) *kube.Client {
	t.Helper()

	c, _ := client(t)
	c.Now = func() time.Time { return time.Now().Add(d) }

	return c
}

func TestLock_RealKube_ACandidateFiveMinutesOffNeverTakesALiveLease(t *testing.T) {
	t.Parallel()

	for _, skew := range []time.Duration{5 * time.Minute, -5 * time.Minute} {
		t.Run(skew.String(), func(t *testing.T) {
			t.Parallel()

			cluster := "lock-skew-live-" + map[bool]string{true: "ahead", false: "behind"}[skew > 0]

			holder, env := client(t)
			holder.LeaseDuration, holder.RenewInterval = 2*time.Second, 200*time.Millisecond

			defer release(t, lock(t, holder, cluster, "apply by ci run 11"))

			_, err := skewedClient(t, skew).Lock(context.Background(), cluster, "apply by a laptop off by "+skew.String(), nil)

			var locked *kube.LockedError
			if !errors.As(err, &locked) || locked.Holder != "apply by ci run 11" {
				t.Fatalf("Lock by a candidate off by %s = %v, want refused naming the live holder", skew, err)
			}

			l, err := lease(t, env, cluster)
			if err != nil {
				t.Fatal(err)
			}

			if *l.Spec.HolderIdentity != "apply by ci run 11" || *l.Spec.LeaseTransitions != 0 {
				t.Errorf("lease holder %q after %d transitions, want the live holder's, never changed", *l.Spec.HolderIdentity, *l.Spec.LeaseTransitions)
			}
		})
	}
}

func TestLock_RealKube_ACandidateFiveMinutesOffTakesADeadLeaseAfterItsDuration(t *testing.T) {
	t.Parallel()

	for _, skew := range []time.Duration{5 * time.Minute, -5 * time.Minute} {
		t.Run(skew.String(), func(t *testing.T) {
			t.Parallel()

			cluster := "lock-skew-dead-" + map[bool]string{true: "ahead", false: "behind"}[skew > 0]

			// The holder took it for 2s and died at once: its renew time is right by its
			// own clock, five minutes old or five minutes ahead by the candidate's.
			holder, env := client(t)
			holder.LeaseDuration, holder.RenewInterval = 2*time.Second, time.Hour
			dead := lock(t, holder, cluster, "apply that died")

			defer func() { _ = dead(context.Background()) }()

			start := time.Now()

			defer release(t, lock(t, skewedClient(t, skew), cluster, "apply by a laptop off by "+skew.String()))

			if took := time.Since(start); took < 2*time.Second {
				t.Errorf("taken over after %s, want only once the Lease was seen unchanged for its 2s", took)
			}

			l, err := lease(t, env, cluster)
			if err != nil {
				t.Fatal(err)
			}

			if *l.Spec.HolderIdentity != "apply by a laptop off by "+skew.String() || *l.Spec.LeaseTransitions != 1 {
				t.Errorf("lease holder %q after %d transitions, want the candidate after 1", *l.Spec.HolderIdentity, *l.Spec.LeaseTransitions)
			}
		})
	}
}
