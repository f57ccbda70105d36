package rollout_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/talops/talops/internal/rollout"
)

// lostAfter is a Stop that says the apply lock was lost once the journal holds event.
func lostAfter(j *journal, event string) func() error {
	return func() error {
		if slices.Contains(j.list(), event) {
			return errors.New("the apply lock of cluster homelab was taken over by ci run 8 while held")
		}

		return nil
	}
}

func TestRun_ALockLostDuringTheDrainStopsBeforeTheNodeChangesAndUncordonsIt(t *testing.T) {
	j := &journal{}
	o := drainOptions
	o.Kube = &recordingKube{j: j}
	o.Stop = lostAfter(j, "drain k8s-node1 (5m0s)")

	r := rollout.Run(context.Background(), newRebootingNodes(j), "homelab", "h", []rollout.Step{worker("k8s-node1", true), worker("k8s-node2", true)}, o)

	if want := []string{"drain k8s-node1 (5m0s)", "uncordon k8s-node1"}; !slices.Equal(j.list(), want) {
		t.Errorf("calls\n got %q\nwant %q", j.list(), want)
	}

	n := r.Nodes[0]
	if want := "stopped before anything reached the node: the apply lock of cluster homelab was taken over by ci run 8 while held; drained, then uncordoned back"; n.Outcome != rollout.Failed || n.Detail != want || n.Cordoned || n.Rebooted {
		t.Errorf("k8s-node1: %s %q (cordoned %v, rebooted %v)\nwant failed %q", n.Outcome, n.Detail, n.Cordoned, n.Rebooted, want)
	}

	if r.Nodes[1].Outcome != rollout.NotAttempted {
		t.Errorf("k8s-node2: %s, want not attempted", r.Nodes[1].Outcome)
	}
}

func TestRun_ALockLostDuringAnUpgradeStopsBeforeTheConfigSayingTheNodeWasUpgraded(t *testing.T) {
	j := &journal{}
	o := drainOptions
	o.Kube = &recordingKube{j: j}
	o.Stop = lostAfter(j, "reboot k8s-node1")

	s := upgraded(worker("k8s-node1", true))
	s.Node.ConfigChanged, s.Node.NeedsReboot = true, true

	r := rollout.Run(context.Background(), newRebootingNodes(j), "homelab", "h", []rollout.Step{s}, o)

	want := []string{
		"drain k8s-node1 (5m0s)", "pull k8s-node1 factory.talos.dev/installer:v1.14.2",
		"upgrade k8s-node1 factory.talos.dev/installer:v1.14.2", "reboot k8s-node1", "uncordon k8s-node1",
	}
	if !slices.Equal(j.list(), want) {
		t.Errorf("calls\n got %q\nwant %q", j.list(), want)
	}

	n := r.Nodes[0]
	if want := "upgraded to Talos v1.14.2, rebooted, healthy; stopped before its config: the apply lock of cluster homelab was taken over by ci run 8 while held; drained, then uncordoned back"; n.Outcome != rollout.Failed || n.Detail != want || !n.Rebooted {
		t.Errorf("k8s-node1: %s %q (rebooted %v)\nwant failed %q", n.Outcome, n.Detail, n.Rebooted, want)
	}
}

func TestRun_ALockLostWhoseUncordonFailsLeavesTheNodeCordonedAndSaysSo(t *testing.T) {
	j := &journal{}
	o := drainOptions
	o.Kube = &recordingKube{j: j, stuck: map[string]error{"k8s-node1": errors.New("connection refused")}}
	o.Stop = lostAfter(j, "drain k8s-node1 (5m0s)")

	r := rollout.Run(context.Background(), newRebootingNodes(j), "homelab", "h", []rollout.Step{worker("k8s-node1", true)}, o)

	n := r.Nodes[0]
	if want := "stopped before anything reached the node: the apply lock of cluster homelab was taken over by ci run 8 while held; drained, and it stays cordoned, the uncordon failed: uncordon node k8s-node1: connection refused"; n.Outcome != rollout.Failed || n.Detail != want || !n.Cordoned {
		t.Errorf("k8s-node1: %s %q (cordoned %v)\nwant failed %q, cordoned", n.Outcome, n.Detail, n.Cordoned, want)
	}
}
