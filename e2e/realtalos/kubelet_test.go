//go:build realtalos

package realtalos

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/cosi-project/runtime/pkg/safe"
	"github.com/siderolabs/talos/pkg/machinery/resources/k8s"
)

// kubeletArgs are the arguments the node's KubeletSpec gives the kubelet.
func kubeletArgs(t *testing.T, n node, talosconfig string) []string {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	spec, err := safe.StateGetByID[*k8s.KubeletSpec](ctx, apiClient(t, n, talosconfig).COSI, k8s.KubeletID)
	if err != nil {
		return nil
	}

	return spec.TypedSpec().Args
}

// The plan calls a change of the kubelet's extra arguments live on 1.14: the node's
// kubelet controllers take it from the running config, no reboot needed.
func TestKubeletExtraArgs_AppliedLive(t *testing.T) {
	t.Parallel()

	l := newLab(t, newAddress())
	n := l.boot(t, true)

	eventually(t, "the node derives its kubelet spec", time.Minute, func() bool { return len(kubeletArgs(t, n, l.admin)) > 0 })

	if slices.Contains(kubeletArgs(t, n, l.admin), "--v=4") {
		t.Fatal("the kubelet has --v=4 before the change")
	}

	// From Talos 1.14 the kubelet has its own document.
	l.write(t, "nodes/cp1.yaml", "machine:\n  sysctls:\n    "+sysctl+": \"45\"\n---\napiVersion: v1alpha1\nkind: KubeletConfig\nextraArgs:\n  v: \"4\"\n")

	if action, reasons, _ := l.planLive(t, l.admin); action != "update" {
		t.Fatalf("a kubelet extra argument plans %s %v, want update (live)", action, reasons)
	}

	if rep, code := l.apply(t); code != 0 || rep.Nodes[0].Outcome != "applied" || rep.Nodes[0].Rebooted {
		t.Fatalf("apply: exit %d, %+v", code, rep.Nodes[0])
	}

	eventually(t, "the kubelet spec gets --v=4 without a reboot", time.Minute, func() bool { return slices.Contains(kubeletArgs(t, n, l.admin), "--v=4") })
}
