package cli_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cli"
)

// --nodes applies only the nodes it names; the others are left as they are, reported as not
// selected, and are neither judged nor touched.
func TestApply_NodesAppliesOnlyTheNodesNamed(t *testing.T) {
	l := newApplyLab(t, nil, nil)
	addSysctl(t, l.files)

	if err := l.apply("--format", "json", "--nodes", "k8s-node3,k8s-node1"); err != nil {
		t.Fatalf("apply --nodes: %v\n%s", err, l.h.stderr.String())
	}

	if got := l.touched(); !slices.Equal(got, []string{"k8s-node1", "k8s-node3"}) {
		t.Errorf("touched %v, want k8s-node1 and k8s-node3", got)
	}

	r := l.report(t)
	for _, n := range r.Nodes {
		selected := n.Name == "k8s-node1" || n.Name == "k8s-node3"

		if selected && n.Outcome != "applied" || !selected && (n.Outcome != "skipped" || n.Detail != "not selected (--nodes)") {
			t.Errorf("%s: %s %q", n.Name, n.Outcome, n.Detail)
		}
	}

	err := l.apply("--nodes", "k8s-node9")
	if cli.ExitCode(err) != cli.ExitFailure || !strings.Contains(err.Error(), `--nodes: "k8s-node9" is not a node of talops.yaml`) {
		t.Errorf("apply --nodes with an unknown node: exit %d, %v", cli.ExitCode(err), err)
	}
}
