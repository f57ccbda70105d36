package action_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/talops/talops/internal/action"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/github/githubtest"
	"github.com/talops/talops/internal/testlab"
)

// withMotd puts a file whose content holds workflow commands on the control plane, first
// line first: the lines after it are the diff's context when first changes.
func withMotd(t *testing.T, files cluster.MapFiles, first string) {
	t.Helper()

	files["nodes/k8s-master.yaml"] = append([]byte("machine:\n  files:\n    - path: /var/etc/motd\n      permissions: 0o644\n      op: create\n      content: |\n        "+
		first+"\n          ::warning::forged\n        ##[add-mask]x\n        ::stop-commands::abc\n---\n"), files["nodes/k8s-master.yaml"]...)
}

// A pull request's patch cannot issue workflow commands through the plan in the step's
// log: no line the runner reads carries `##[` or starts with `::` but talops' own.
func TestPlan_APatchCannotIssueWorkflowCommandsInTheLog(t *testing.T) {
	t.Parallel()

	gh := githubtest.New(t, "lab", "infra", 7)

	head, base := testlab.Files(t), testlab.Files(t)
	withMotd(t, head, "new")
	withMotd(t, base, "old")

	r := newRunner(t, head, map[string]string{"dir": "examples/homelab", "against": "base", "github-token": "ghs_faketoken"})
	r.dirs["base"] = base
	r.env["GITHUB_API_URL"] = gh.URL

	if err := action.Run(context.Background(), r.deps, []string{"plan"}); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout.String())
	}

	log := r.stdout.String() + r.stderr.String()
	if !strings.Contains(log, "forged") {
		t.Fatalf("the plan in the log does not show the patch's content:\n%s", log)
	}

	for _, line := range regexp.MustCompile(`\r\n|\r|\n`).Split(log, -1) {
		cmd := strings.TrimLeft(line, " \t")
		if strings.Contains(line, "##[") || strings.HasPrefix(cmd, "::") && (strings.Contains(line, "forged") || strings.Contains(line, "stop-commands")) {
			t.Errorf("the log carries a live command: %q", line)
		}
	}
}
