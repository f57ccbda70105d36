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
	before := time.Now().Truncate(time.Microsecond)
	first := lock(t, c, "lock-refused", "apply by ci run 7")
	after := time.Now()

	defer release(t, first)

	_, err := c.Lock(context.Background(), "lock-refused", "apply by laptop", nil)

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

	if !locked.Expires.After(after) || locked.Expires.After(after.Add(kube.DefaultLeaseDuration)) {
		t.Errorf("lapses at %s, want within %s of %s", locked.Expires, kube.DefaultLeaseDuration, after)
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

	// What an apply that died leaves: its last renewal two minutes ago, for 60s.
	holder, seconds := "apply that died", int32(60)
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

func TestLock_ExpiryIsJudgedByTheInjectedClock(t *testing.T) {
	t.Parallel()

	c, _ := client(t)
	// The first holder never renews within the test.
	c.RenewInterval = time.Hour
	first := lock(t, c, "lock-clock", "apply one")

	defer func() { _ = first(context.Background()) }()

	later, _ := client(t)
	later.Now = func() time.Time { return time.Now().Add(kube.DefaultLeaseDuration + time.Second) }

	defer release(t, lock(t, later, "lock-clock", "apply two"))

	_, err := c.Lock(context.Background(), "lock-clock", "apply three", nil)

	var locked *kube.LockedError
	if !errors.As(err, &locked) || locked.Holder != "apply two" {
		t.Errorf("Lock after the takeover = %v, want refused naming apply two", err)
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
