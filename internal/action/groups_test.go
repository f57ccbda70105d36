package action

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/rollout"
)

func TestNodeGroups_OneGroupPerNodeClosedWhenTheNextStartsAndAtTheEnd(t *testing.T) {
	var log strings.Builder

	g := &nodeGroups{
		write:    func(s string) { log.WriteString(s) },
		group:    func(title string) { log.WriteString("::group::" + title + "\n") },
		endGroup: func() { log.WriteString("::endgroup::\n") },
	}

	for _, p := range []rollout.Progress{
		{End: true}, // nothing open: nothing to close
		{Index: 1, Total: 2, Node: "k8s-master", What: "sending its config (mode auto)"},
		{Index: 1, Total: 2, Node: "k8s-master", What: "applied after 3s"},
		rollout.Line("health check ingress between nodes: waiting up to 5m0s"),
		{Index: 2, Total: 2, Node: "k8s-node1", What: "draining (3 pods)"},
		{Index: 2, Total: 2, Node: "k8s-node1", What: "applied after 1m42s"},
		{End: true},
		{End: true},
	} {
		g.step(p)
	}

	want := "::group::[1/2] k8s-master\n" +
		"[1/2] k8s-master: sending its config (mode auto)\n" +
		"[1/2] k8s-master: applied after 3s\n" +
		"health check ingress between nodes: waiting up to 5m0s\n" +
		"::endgroup::\n" +
		"::group::[2/2] k8s-node1\n" +
		"[2/2] k8s-node1: draining (3 pods)\n" +
		"[2/2] k8s-node1: applied after 1m42s\n" +
		"::endgroup::\n"

	if log.String() != want {
		t.Errorf("log:\n%s\nwant:\n%s", log.String(), want)
	}
}
