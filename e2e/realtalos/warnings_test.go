//go:build realtalos

package realtalos

import (
	"slices"
	"testing"
	"time"
)

// The node's own warnings about a config it takes reach the report: a PCI driver rebind
// on a machine without an IOMMU (the sandbox has none) is taken with a warning.
func TestApply_TheNodesWarningsReachTheReport(t *testing.T) {
	t.Parallel()

	l := newLab(t, newAddress())
	n := l.boot(t, true)

	l.write(t, "nodes/cp1.yaml", "machine:\n  sysctls:\n    "+sysctl+": \"50\"\n---\napiVersion: v1alpha1\nkind: PCIDriverRebindConfig\nname: 0000:04:00.0\ntargetDriver: vfio-pci\n")

	rep, code := l.apply(t, "--mode", "no-reboot")
	got := rep.Nodes[0]

	want := "IOMMU is not enabled, this config change might not have any effect"
	if code != 0 || got.Outcome != "applied" || !slices.Contains(got.Warnings, want) {
		t.Errorf("apply of a config the node warns about: exit %d, %+v; want the warning %q", code, got, want)
	}

	eventually(t, "the node sets "+sysctl+" = 50", time.Minute, func() bool { return sysctlValue(t, n, l.admin) == "50" })
}
