package rollout_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/talops/talops/internal/rollout"
)

func TestK8sUpgrade_ALostLockStopsItBeforeTheNextMoveSayingWhatMoved(t *testing.T) {
	u, nodes := k8sLab(t, "v1.35.2", nil)
	c := newK8sCluster(t, nodes)

	lost := errors.New("the apply lock of homelab was taken over by ci run 8 while held")

	o := k8sOptions
	o.Stop = func() error {
		c.mu.Lock()
		defer c.mu.Unlock()

		if len(c.applied) >= 2 {
			return lost
		}

		return nil
	}

	res, err := rollout.UpgradeKubernetes(context.Background(), c, c, u, nodes, o)

	var stopped *rollout.K8sStoppedError
	if !errors.As(err, &stopped) || !errors.Is(err, lost) {
		t.Fatalf("upgrade with the lock lost after two moves = %v, want a *K8sStoppedError wrapping the loss", err)
	}

	if len(c.applied) != 2 || c.synced != 0 {
		t.Errorf("after the loss: %d configs applied, manifests synced %d times; want the 2 before it and no sync", len(c.applied), c.synced)
	}

	first, second := c.applied[0].node, c.applied[1].node
	want := "Kubernetes upgrade stopped before kube-apiserver on " + stopped.Node + ": " + lost.Error() +
		"; Kubernetes v1.36.4 runs where it moved (kube-apiserver on " + first + ", kube-apiserver on " + second +
		"), v1.35.2 everywhere else; applying the plan again finishes it"
	if err.Error() != want {
		t.Errorf("error\n got %s\nwant %s", err, want)
	}

	if res == nil || !strings.Contains(strings.Join(res.Done, "\n"), first+": kube-apiserver runs") {
		t.Errorf("the moves done are not in the result: %+v", res)
	}
}

func TestK8sUpgrade_ALockLostBeforeItStartsMovesNothing(t *testing.T) {
	u, nodes := k8sLab(t, "v1.35.2", nil)
	c := newK8sCluster(t, nodes)

	o := k8sOptions
	o.Stop = func() error { return errors.New("lost") }

	_, err := rollout.UpgradeKubernetes(context.Background(), c, c, u, nodes, o)

	var stopped *rollout.K8sStoppedError
	if !errors.As(err, &stopped) || !strings.HasSuffix(err.Error(), ": lost; nothing had moved; applying the plan again finishes it") {
		t.Fatalf("upgrade with the lock lost at once = %v", err)
	}

	if len(c.applied) != 0 || len(c.pulls) != 0 {
		t.Errorf("%d configs applied, %d pulls after the loss, want none", len(c.applied), len(c.pulls))
	}
}
