package rollout

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/talos"
)

var (
	ready   = talos.Status{Stage: "running", Ready: true}
	noCNI   = talos.Status{Stage: "running", Unmet: []talos.Condition{{Name: "nodeReady", Reason: "node not ready"}}}
	booting = talos.Status{Stage: "booting", Unmet: []talos.Condition{{Name: "network", Reason: "connectivity"}, {Name: "services", Reason: "kubelet not running"}}}
)

func TestNoWorse(t *testing.T) {
	for _, tc := range []struct {
		name        string
		before, now talos.Status
		want        string // "" for no error, else a part of it
	}{
		{"ReadyNodeReadyAgain", ready, ready, ""},
		{"ReadyNodeNotReadyAfter", ready, noCNI, "machine stage running, ready false unmet: nodeReady (node not ready)"},
		{"NodeWithoutCNIStaysWithoutCNI", noCNI, noCNI, ""},
		{"NodeWithoutCNIGetsReady", noCNI, ready, ""},
		{"BootingNodeWithTheSameUnmetConditions", booting, booting, ""},
		{"BootingNodeLosesAnUnmetCondition", booting, talos.Status{Stage: "booting", Unmet: booting.Unmet[:1]}, ""},
		{"NodeGoesBackAStage", noCNI, booting, "machine stage booting, was running before the change"},
		{"NodeGainsAnUnmetCondition", noCNI, talos.Status{Stage: "running", Unmet: append([]talos.Condition{{Name: "time", Reason: "not in sync"}}, noCNI.Unmet...)}, "newly unmet: time (not in sync)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := noWorse(tc.before, tc.now)

			switch {
			case tc.want == "" && err != nil:
				t.Errorf("noWorse: %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("noWorse: %v, want %q", err, tc.want)
			}
		})
	}
}

func TestSameConfig_TheSameDocumentsEncodedDifferently(t *testing.T) {
	a := []byte("version: v1alpha1\nmachine:\n  type: worker\n  token: abc\ncluster:\n  clusterName: lab\n")
	b := []byte("# a comment\ncluster: {clusterName: lab}\nmachine: {token: abc, type: worker}\nversion: v1alpha1\n")
	c := []byte("version: v1alpha1\nmachine:\n  type: worker\n  token: abd\ncluster:\n  clusterName: lab\n")

	if !sameConfig(a, b) {
		t.Error("the same config in another encoding is not the same")
	}

	if sameConfig(a, c) {
		t.Error("configs with another token are the same")
	}

	if sameConfig(a, []byte("not: [a config")) {
		t.Error("a config is the same as bytes that do not load")
	}
}

func TestDryRunSummary_CountsTheDiffAndNeverQuotesIt(t *testing.T) {
	details := "Dry run summary:\nApplied configuration without a reboot (skipped in dry-run).\nConfig diff:\n\n--- a\n+++ b\n@@ -1,2 +1,2 @@\n-  token: old-secret\n+  token: new-secret\n"

	got := dryRunSummary(details)
	if got != "2 lines of its config would change" {
		t.Errorf("dryRunSummary = %q", got)
	}

	if strings.Contains(got, "secret") {
		t.Errorf("the summary quotes the diff: %q", got)
	}

	if got := dryRunSummary("Dry run summary:\nApplied configuration without a reboot (skipped in dry-run).\nConfig diff:\n\nNo changes."); got != "no changes" {
		t.Errorf("dryRunSummary of no change = %q", got)
	}
}

func TestPoll_InterruptedSaysSoWithTheTimeItWaited(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())

	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	o := Options{GateTimeout: time.Hour, GateInterval: time.Millisecond, Now: func() time.Time { return clock }}

	tries := 0

	err := poll(ctx, o, func(context.Context) error {
		tries++
		if tries == 3 {
			clock = clock.Add(2 * time.Minute)
			cancel()
		}

		return errors.New("machine stage booting")
	})

	if err == nil || err.Error() != "interrupted after 2m0s: machine stage booting" {
		t.Errorf("poll interrupted: %v", err)
	}
}

func TestPoll_TimedOutNamesTheGateTimeout(t *testing.T) {
	o := Options{GateTimeout: 20 * time.Millisecond, GateInterval: time.Millisecond}

	err := poll(context.Background(), o, func(context.Context) error { return errors.New("machine stage booting") })
	if err == nil || err.Error() != "after 20ms: machine stage booting" {
		t.Errorf("poll timed out: %v", err)
	}
}

func TestNotReady_ANodeNoBetterThanBeforeIsNotCalledHealthy(t *testing.T) {
	if got := notReady("applied live, healthy", health{status: ready}); got != "applied live, healthy" {
		t.Errorf("a ready node: %q", got)
	}

	if got := notReady("applied live, healthy", health{status: noCNI}); got != "applied live; not ready, as before the change; unmet: nodeReady (node not ready)" {
		t.Errorf("a node without its CNI: %q", got)
	}

	if got := notReady("applied, rebooted, healthy", health{status: talos.Status{Stage: "booting"}}); got != "applied, rebooted; not ready, as before the change" {
		t.Errorf("a booting node: %q", got)
	}
}

func TestPoll_ALongWaitSaysOnceInAWhileWhatItWaitsForAndHowLong(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

	var lines []string

	o := Options{GateTimeout: time.Hour, GateInterval: time.Millisecond, Heartbeat: 30 * time.Second, Now: func() time.Time { return clock }}
	o.waiting = func(line string) { lines = append(lines, line) }

	tries := 0

	err := pollFor(context.Background(), o, "the node to come back healthy", func(context.Context) error {
		tries++
		if tries == 10 {
			return nil
		}

		clock = clock.Add(10 * time.Second) // a try every 10s: a line every third

		return errors.New("machine stage booting")
	})
	if err != nil {
		t.Fatal(err)
	}

	want := []string{
		"still waiting for the node to come back healthy: 30s so far (machine stage booting)",
		"still waiting for the node to come back healthy: 1m0s so far (machine stage booting)",
		"still waiting for the node to come back healthy: 1m30s so far (machine stage booting)",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("lines:\n%s", strings.Join(lines, "\n"))
	}
}

func TestK8sWait_TheKubeletWaitSaysOnceInAWhileWhatItWaitsFor(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

	var lines []string

	r := &k8sUpgrade{o: K8sOptions{
		WaitTimeout: time.Hour, CallTimeout: time.Second, Interval: time.Millisecond, Heartbeat: time.Minute,
		Now: func() time.Time { return clock }, Progress: func(p Progress) { lines = append(lines, p.String()) },
	}}

	last, looks := "", 0

	err := r.wait(context.Background(), "the Node k8s-node1 to report kubelet v1.36.4", &last, func(context.Context) (bool, error) {
		looks++
		clock = clock.Add(20 * time.Second)
		last = "the Node reports kubelet v1.35.2"

		return looks == 7, nil
	})
	if err != nil {
		t.Fatal(err)
	}

	want := []string{
		"still waiting for the Node k8s-node1 to report kubelet v1.36.4: 1m0s so far (the Node reports kubelet v1.35.2)",
		"still waiting for the Node k8s-node1 to report kubelet v1.36.4: 2m0s so far (the Node reports kubelet v1.35.2)",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("lines:\n%s", strings.Join(lines, "\n"))
	}
}
