package plan_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/migrate"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/testlab"
)

// migrated is the lab moved to the v1.14 layout by talops migrate's core.
func migrated(t testing.TB) cluster.MapFiles {
	t.Helper()

	files := testlab.Files(t)

	res, err := migrate.Rewrite(migrate.InputOf(testlab.Load(t, files), files["talops.yaml"], "v1.14"))
	if err != nil {
		t.Fatal(err)
	}

	for _, f := range res.Files {
		files[f.Path] = f.Data
	}

	return files
}

// layouts shows each node as name=action, with /layout when it is labelled layout only
// and /reboot when it needs one.
func layouts(p *plan.Plan) string {
	var out []string

	for _, n := range p.Nodes {
		s := fmt.Sprintf("%s=%s", n.Name, n.Action)
		if n.LayoutOnly {
			s += "/layout"
		}

		if n.NeedsReboot {
			s += "/reboot"
		}

		out = append(out, s)
	}

	return strings.Join(out, " ")
}

func TestCompute_LayoutOnlyWhenTheConfigOnlyMovesBetweenDocuments(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name string
		// current and desired are the two states of the lab planned.
		current, desired func(t testing.TB) cluster.MapFiles
		want, summary    string
	}{
		{
			name:    "the lab migrated to the 1.14 layout: every node, nothing reboots",
			current: testlab.Files, desired: migrated,
			want:    "k8s-master=update/layout k8s-node1=update/layout k8s-node2=update/layout k8s-node3=update/layout k8s-node4=update/layout",
			summary: "Plan: 5 nodes — 5 updates (layout only)",
		},
		{
			name:    "a worker label changed beside the move: every worker is an update",
			current: testlab.Files,
			desired: func(t testing.TB) cluster.MapFiles {
				t.Helper()

				files := migrated(t)
				testlab.Edit(t, files, "patches/worker.yaml", `node-role.kubernetes.io/worker: ""`, `node-role.kubernetes.io/worker: ""`+"\n  zone: b")

				return files
			},
			want:    "k8s-master=update/layout k8s-node1=update k8s-node2=update k8s-node3=update k8s-node4=update",
			summary: "Plan: 5 nodes — 5 updates (1 layout only)",
		},
		{
			name:    "a sysctl changed beside the move: no node is layout only",
			current: testlab.Files,
			desired: func(t testing.TB) cluster.MapFiles {
				t.Helper()

				files := migrated(t)
				testlab.Edit(t, files, "patches/common.yaml", `max_user_watches: "1048576"`, `max_user_watches: "2097152"`)

				return files
			},
			want:    "k8s-master=update k8s-node1=update k8s-node2=update k8s-node3=update k8s-node4=update",
			summary: "Plan: 5 nodes — 5 updates",
		},
		{
			name:    "the migrated lab moved back into v1alpha1: updates, as only a move out of it is labelled",
			current: migrated, desired: testlab.Files,
			want:    "k8s-master=update k8s-node1=update k8s-node2=update k8s-node3=update k8s-node4=update",
			summary: "Plan: 5 nodes — 5 updates",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			p := compute(t, tc.current(t), tc.desired(t))

			if got := layouts(p); got != tc.want {
				t.Errorf("nodes\n got %s\nwant %s", got, tc.want)
			}

			if got := p.Summary(); got != tc.summary {
				t.Errorf("summary %q, want %q", got, tc.summary)
			}
		})
	}
}

func TestCompute_LayoutOnlyNodeSaysWhatMovedAndWhatTheNewDocumentsBring(t *testing.T) {
	t.Parallel()

	p := compute(t, testlab.Files(t), migrated(t))
	master, worker := p.Nodes[0], p.Nodes[2]

	for _, want := range []string{
		"layout only: the node runs every setting as before, written in other documents: applied live, no reboot, no drain",
		"the new documents by themselves: kube-apiserver mounts the host's CA roots (/etc/ssl/certs), as KubeAPIServerConfig always has it",
		"the new documents by themselves: kube-proxy reads its settings from a config file instead of flags, as KubeProxyConfig always has it",
	} {
		if !strings.Contains(strings.Join(master.Reasons, "\n"), want) {
			t.Errorf("the control plane's reasons lack %q:\n%s", want, strings.Join(master.Reasons, "\n"))
		}
	}

	reasons := strings.Join(worker.Reasons, "\n")
	for _, want := range []string{"out of the v1alpha1 document: ", "machine.nodeLabels", "documents: ", "KubeNodeConfig added"} {
		if !strings.Contains(reasons, want) {
			t.Errorf("the worker's reasons lack %q:\n%s", want, reasons)
		}
	}

	if strings.Contains(reasons, "by themselves") || strings.Contains(reasons, "reboot:") {
		t.Errorf("the worker's reasons say more than the move:\n%s", reasons)
	}
}
