package cli_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/testlab"
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
	if cli.ExitCode(err) != cli.ExitFailure || !strings.Contains(err.Error(), `--nodes: "k8s-node9" is not a node of talops.yaml (a name, hostname or address)`) {
		t.Errorf("apply --nodes with an unknown node: exit %d, %v", cli.ExitCode(err), err)
	}
}

// A node may be named as the user knows it: its talops name, its hostname (the name of its
// Kubernetes Node) or its address.
func TestApply_NodesSelectsByHostnameOrAddressToo(t *testing.T) {
	l := newApplyLab(t, nil, nil)
	addSysctl(t, l.files)
	testlab.Edit(t, l.files, "nodes/k8s-node2.yaml", "hostname: k8s-node2", "hostname: worker-b")

	if err := l.apply("--format", "json", "--nodes", "10.0.20.103,worker-b"); err != nil {
		t.Fatalf("apply --nodes: %v\n%s", err, l.h.stderr.String())
	}

	if got := l.touched(); !slices.Equal(got, []string{"k8s-node2", "k8s-node3"}) {
		t.Errorf("touched %v, want k8s-node2 (worker-b) and k8s-node3 (10.0.20.103)", got)
	}
}

func TestApply_NodesSuggestsTheNodeATypoMeant(t *testing.T) {
	l := newApplyLab(t, nil, nil)

	err := l.apply("--nodes", "k8s-nod3")
	if cli.ExitCode(err) != cli.ExitFailure || err.Error() != `--nodes: "k8s-nod3" is not a node of talops.yaml (a name, hostname or address); did you mean k8s-node3?` {
		t.Errorf("apply --nodes with a typo: exit %d, %v", cli.ExitCode(err), err)
	}
}
