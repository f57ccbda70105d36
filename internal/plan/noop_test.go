package plan_test

import (
	"testing"

	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/testlab"
)

// An empty list in a patch changes the documents (an empty list where there was none)
// but not their encoding: the node is unchanged, with no diff.
func TestCompute_EmptyListLeavesNodeUnchanged(t *testing.T) {
	desired := testlab.Files(t)
	desired["nodes/k8s-node1.yaml"] = append([]byte("machine:\n  certSANs: []\n---\n"), desired["nodes/k8s-node1.yaml"]...)

	p := compute(t, testlab.Files(t), desired)

	for _, n := range p.Nodes {
		if n.Action != plan.Noop || n.Diff != "" || n.ConfigChanged || len(n.Reasons) > 0 {
			t.Errorf("node %s: %s, config changed %v, reasons %q, diff:\n%s", n.Name, n.Action, n.ConfigChanged, n.Reasons, n.Diff)
		}
	}
}
