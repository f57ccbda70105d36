package action_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/action"
	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/github/githubtest"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/report"
	"github.com/talops/talops/internal/talos/talostest"
	"github.com/talops/talops/internal/testlab"
)

const mergeSHA = "cafe0000000000000000000000000000000000ff"

var labNodes = []string{"k8s-master", "k8s-node1", "k8s-node2", "k8s-node3", "k8s-node4"}

// applyLab is a merge to main, seen from the self-hosted runner: the nodes run the
// reviewed base (the reference lab), main adds a sysctl to every node, and pull request
// #7 was merged as mergeSHA.
type applyLab struct {
	gh          *githubtest.Server
	nodes       map[string]*talostest.Server
	journal     *talostest.Journal
	base, head  map[string][]byte
	talosconfig string
	key         string
	endpoints   map[string]string
}

func newApplyLab(t *testing.T) *applyLab {
	t.Helper()

	l := &applyLab{
		gh: githubtest.New(t, "lab", "infra", 7), nodes: map[string]*talostest.Server{}, journal: &talostest.Journal{},
		base: testlab.Files(t), head: testlab.Files(t), endpoints: map[string]string{},
	}
	testlab.Edit(t, l.head, "patches/common.yaml", `fs.inotify.max_user_instances: "8192"`, `fs.inotify.max_user_instances: "8192"`+"\n    vm.max_map_count: \"262144\"")

	ids, err := render.SchematicIDs(testlab.Load(t, l.base))
	if err != nil {
		t.Fatal(err)
	}

	ca := talostest.NewCA(t)

	for i, name := range labNodes {
		n := talostest.Node{Name: name, Config: renderNode(t, l.base, name), Version: testlab.Talos, SchematicID: ids["base"], Journal: l.journal}
		if name == "k8s-node1" {
			n.SchematicID = ids["gpu"]
		}

		l.nodes[name] = talostest.Start(t, ca, n)
		l.endpoints[fmt.Sprintf("10.0.20.%d", 100+i)] = l.nodes[name].Addr
	}

	cfg := talostest.Talosconfig(t, "homelab", ca.PEM, ca.ClientCert(t))
	l.key = cfg.Contexts["homelab"].Key
	l.talosconfig = string(talostest.TalosconfigBytes(t, cfg))

	l.gh.AddCommitPull(mergeSHA, githubtest.CommitPull{Number: 7, Merged: true, BaseRef: "main", BaseSHA: "aaaa", MergeCommitSHA: mergeSHA})

	return l
}

// review runs the plan action on pull request #7, as the pull request workflow did: it
// leaves the sticky plan comment with the reviewed hash.
func (l *applyLab) review(t *testing.T) {
	t.Helper()

	r := newRunner(t, l.head, map[string]string{"dir": "examples/homelab", "against": "base", "github-token": "ghs_faketoken"})
	r.dirs["base"] = l.base
	r.env["GITHUB_API_URL"] = l.gh.URL

	if err := action.Run(context.Background(), r.deps, []string{"plan"}); err != nil {
		t.Fatalf("plan: %v\n%s", err, r.stdout.String())
	}
}

// runner is the apply action's environment on a push of mergeSHA to main.
func (l *applyLab) runner(t *testing.T, inputs map[string]string) *runner {
	t.Helper()

	in := map[string]string{
		"dir": "examples/homelab", "talosconfig": l.talosconfig, "github-token": "ghs_faketoken",
		"reviewed-against": "base", "register": "false", "proxmox-images": "false",
	}
	for k, v := range inputs {
		in[k] = v
	}

	r := newRunner(t, l.head, in)
	r.dirs["base"] = l.base
	r.env["GITHUB_API_URL"] = l.gh.URL
	r.env["GITHUB_EVENT_NAME"] = "push"
	r.env["GITHUB_SHA"] = mergeSHA
	r.env["GITHUB_REF"] = "refs/heads/main"

	if err := os.WriteFile(r.env["GITHUB_EVENT_PATH"], []byte(`{"ref": "refs/heads/main", "after": "`+mergeSHA+`", "repository": {"name": "infra", "owner": {"login": "lab"}, "default_branch": "main"}}`), 0o600); err != nil {
		t.Fatal(err)
	}

	r.deps.TalosTimeout = 5 * time.Second
	r.deps.GateTimeout = 5 * time.Second
	r.deps.GateInterval = 10 * time.Millisecond
	r.deps.TalosEndpoint = func(address string) string {
		if a, ok := l.endpoints[address]; ok {
			return a
		}

		return talostest.Closed(t)
	}

	return r
}

// applyComments are the comments carrying the apply marker.
func (l *applyLab) applyComments() []string {
	var out []string

	for _, c := range l.gh.Comments() {
		if strings.HasPrefix(c, report.ApplyMarker("homelab")) {
			out = append(out, c)
		}
	}

	return out
}

func TestApply_TheReviewedPlanIsAppliedAndReportedOnTheMergedPullRequest(t *testing.T) {
	l := newApplyLab(t)
	l.review(t)

	r := l.runner(t, nil)
	if err := action.Run(context.Background(), r.deps, []string{"apply"}); err != nil {
		t.Fatalf("apply: %v\n%s", err, r.stdout.String())
	}

	if got := len(l.journal.Entries()); got != 5 {
		t.Errorf("%d node calls, want every node applied: %q", got, l.journal.Entries())
	}

	comments := l.applyComments()
	if len(comments) != 1 || !strings.Contains(comments[0], "**Apply: homelab — 5 applied**") ||
		!strings.Contains(comments[0], "| k8s-master | controlplane | update | applied | applied live, healthy |") ||
		!strings.Contains(comments[0], "The plan reviewed on lab/infra#7") {
		t.Errorf("apply comments on #7:\n%s", strings.Join(comments, "\n---\n"))
	}

	if s := r.file(t, "GITHUB_STEP_SUMMARY"); !strings.Contains(s, "**Apply: homelab — 5 applied**") || strings.Contains(s, "talops:apply") {
		t.Errorf("summary:\n%s", s)
	}

	out := r.file(t, "GITHUB_OUTPUT")
	for _, want := range []string{"applied<<", "\n5\n", "failed<<", "\n0\n", "skipped<<"} {
		if !strings.Contains(out, want) {
			t.Errorf("outputs lack %q:\n%s", want, out)
		}
	}

	var rep struct{ Summary struct{ Line string } }
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "{") {
			if err := json.Unmarshal([]byte(line), &rep); err != nil {
				t.Errorf("report output is not one line of JSON: %v", err)
			}
		}
	}

	if rep.Summary.Line != "Apply: homelab — 5 applied" {
		t.Errorf("report output summary %q", rep.Summary.Line)
	}

	// A re-run of the workflow: the nodes now run main, the plan against the reviewed base
	// is unchanged, so the check passes, every node is skipped and the same comment is edited.
	r = l.runner(t, nil)
	if err := action.Run(context.Background(), r.deps, []string{"apply"}); err != nil {
		t.Fatalf("second apply: %v\n%s", err, r.stdout.String())
	}

	if c := l.applyComments(); len(c) != 1 || !strings.Contains(c[0], "5 skipped") {
		t.Errorf("after a re-run, apply comments:\n%s", strings.Join(c, "\n---\n"))
	}
}

func TestApply_AnotherHashOnThePlanCommentRefusesWithoutTouchingANode(t *testing.T) {
	l := newApplyLab(t)
	l.gh.AddComment(report.Marker("homelab") + "\n" + report.HashMarker(strings.Repeat("0", 64)) + "\n### talops plan: homelab\n")

	r := l.runner(t, nil)

	err := action.Run(context.Background(), r.deps, []string{"apply"})

	var refused *cli.RefusedError
	if !errors.As(err, &refused) || !strings.Contains(err.Error(), "the plan differs from the one reviewed") {
		t.Fatalf("error %v, want the hash refused", err)
	}

	if got := l.journal.Entries(); len(got) > 0 {
		t.Errorf("nodes touched: %q", got)
	}

	for _, n := range l.nodes {
		if len(n.Applied()) > 0 || n.DryRuns() > 0 {
			t.Error("a node was sent a config")
		}
	}

	if c := l.applyComments(); len(c) != 1 || !strings.Contains(c[0], "**Apply refused: no node was changed.**") {
		t.Errorf("the refusal is not reported on #7:\n%s", strings.Join(c, "\n---\n"))
	}
}

func TestApply_NoMergedPullRequestRefusesUnlessAReviewIsNotRequired(t *testing.T) {
	l := newApplyLab(t)

	r := l.runner(t, nil)
	r.env["GITHUB_SHA"] = "beef000000000000000000000000000000000000"

	err := action.Run(context.Background(), r.deps, []string{"apply"})
	if !strings.Contains(fmt.Sprint(err), "no merged pull request was found for beef") || len(l.journal.Entries()) > 0 {
		t.Fatalf("error %v, calls %q", err, l.journal.Entries())
	}

	r = l.runner(t, map[string]string{"require-reviewed-plan": "false"})
	r.env["GITHUB_SHA"] = "beef000000000000000000000000000000000000"

	if err := action.Run(context.Background(), r.deps, []string{"apply"}); err != nil {
		t.Fatalf("apply unreviewed: %v\n%s", err, r.stdout.String())
	}

	if !strings.Contains(r.stdout.String(), "::warning::no merged pull request was found") || len(l.journal.Entries()) != 5 {
		t.Errorf("calls %q, log:\n%s", l.journal.Entries(), r.stdout.String())
	}

	if !strings.Contains(r.file(t, "GITHUB_STEP_SUMMARY"), "No reviewed plan was checked") {
		t.Errorf("summary:\n%s", r.file(t, "GITHUB_STEP_SUMMARY"))
	}
}

func TestApply_AMergedPullRequestWithoutAPlanCommentRefuses(t *testing.T) {
	l := newApplyLab(t)
	l.gh.AddComment("LGTM")

	r := l.runner(t, nil)

	err := action.Run(context.Background(), r.deps, []string{"apply"})
	if !strings.Contains(fmt.Sprint(err), "lab/infra#7 has no talops plan comment for cluster homelab") || len(l.journal.Entries()) > 0 {
		t.Fatalf("error %v, calls %q", err, l.journal.Entries())
	}
}

func TestApply_PullRequestEventsAreRefusedBeforeGitHubIsAsked(t *testing.T) {
	l := newApplyLab(t)

	r := l.runner(t, nil)
	r.env["GITHUB_EVENT_NAME"] = "pull_request"

	var refused *cli.RefusedError
	if err := action.Run(context.Background(), r.deps, []string{"apply"}); !errors.As(err, &refused) {
		t.Fatalf("error %v, want a refusal", err)
	}

	if n := len(l.gh.Requests()); n > 0 || len(l.journal.Entries()) > 0 {
		t.Errorf("%d GitHub requests, node calls %q", n, l.journal.Entries())
	}
}

func TestApply_APushToAnotherBranchIsRefused(t *testing.T) {
	l := newApplyLab(t)

	r := l.runner(t, nil)
	if err := os.WriteFile(r.env["GITHUB_EVENT_PATH"], []byte(`{"ref": "refs/heads/wip", "repository": {"default_branch": "main"}}`), 0o600); err != nil {
		t.Fatal(err)
	}

	err := action.Run(context.Background(), r.deps, []string{"apply"})
	if !strings.Contains(fmt.Sprint(err), "apply runs on the default branch (main), not on refs/heads/wip") || len(l.journal.Entries()) > 0 {
		t.Fatalf("error %v, calls %q", err, l.journal.Entries())
	}
}

func TestApply_ReadOnlyTokenDegradesToTheSummary(t *testing.T) {
	l := newApplyLab(t)
	l.review(t)
	l.gh.ReadOnly()

	r := l.runner(t, nil)
	if err := action.Run(context.Background(), r.deps, []string{"apply"}); err != nil {
		t.Fatalf("apply: %v\n%s", err, r.stdout.String())
	}

	if !strings.Contains(r.stdout.String(), "::notice::the apply report is in the job summary only") {
		t.Errorf("no notice:\n%s", r.stdout.String())
	}

	if !strings.Contains(r.file(t, "GITHUB_STEP_SUMMARY"), "5 applied") || len(l.applyComments()) != 0 {
		t.Error("the report is not in the summary alone")
	}
}

func TestApply_NoSecretOrTalosconfigKeyReachesGitHubTheSummaryTheOutputsOrTheLog(t *testing.T) {
	l := newApplyLab(t)
	l.review(t)

	r := l.runner(t, nil)
	if err := action.Run(context.Background(), r.deps, []string{"apply"}); err != nil {
		t.Fatal(err)
	}

	keyPEM, err := base64.StdEncoding.DecodeString(l.key)
	if err != nil {
		t.Fatal(err)
	}

	values := append(labValues(t), l.key)
	values = append(values, action.MaskLines(string(keyPEM))...)

	var sent strings.Builder
	for _, req := range l.gh.Requests() {
		sent.WriteString(req.Body)
	}

	var log strings.Builder

	masked := false

	for _, line := range strings.Split(r.stdout.String(), "\n") {
		if strings.HasPrefix(line, "::add-mask::") {
			masked = masked || strings.Contains(l.key, strings.TrimPrefix(line, "::add-mask::"))

			continue
		}

		log.WriteString(line + "\n")
	}

	if !masked {
		t.Error("the talosconfig key was not registered with the runner's masking")
	}

	for what, text := range map[string]string{"GitHub requests": sent.String(), "summary": r.file(t, "GITHUB_STEP_SUMMARY"), "outputs": r.file(t, "GITHUB_OUTPUT"), "log": log.String(), "stderr": r.stderr.String()} {
		for _, v := range values {
			if strings.Contains(text, v) {
				t.Errorf("%s contains a secret value", what)
			}
		}
	}

	if len(l.applyComments()) != 1 || !strings.Contains(log.String(), "Apply: homelab — 5 applied") {
		t.Error("the scan would prove nothing: no comment or no report in the log")
	}
}

func TestApply_APlanCommentSomebodyElseWroteIsNotTrusted(t *testing.T) {
	l := newApplyLab(t)
	// Somebody copies the marker and a hash into a comment of their own.
	l.gh.AddCommentBy("mallory", report.Marker("homelab")+"\n"+report.HashMarker(strings.Repeat("0", 64))+"\n### talops plan: homelab\n")

	r := l.runner(t, nil)

	err := action.Run(context.Background(), r.deps, []string{"apply"})
	if !strings.Contains(fmt.Sprint(err), "lab/infra#7 has no talops plan comment for cluster homelab") || len(l.journal.Entries()) > 0 {
		t.Fatalf("error %v, calls %q", err, l.journal.Entries())
	}
}

func TestApply_APayloadWithoutTheDefaultBranchIsRefused(t *testing.T) {
	l := newApplyLab(t)

	r := l.runner(t, nil)
	if err := os.WriteFile(r.env["GITHUB_EVENT_PATH"], []byte(`{"ref": "refs/heads/main", "repository": {"name": "infra"}}`), 0o600); err != nil {
		t.Fatal(err)
	}

	err := action.Run(context.Background(), r.deps, []string{"apply"})
	if !strings.Contains(fmt.Sprint(err), "apply cannot tell that it runs on the default branch") || len(l.journal.Entries()) > 0 {
		t.Fatalf("error %v, calls %q", err, l.journal.Entries())
	}
}

// Turning the review check off is said on every run, as a warning annotation before
// anything else, and in the apply summary, with the merged pull request found or not.
func TestApply_RequireReviewedPlanFalseWarnsOnEveryRunAndIsNamedInTheSummary(t *testing.T) {
	l := newApplyLab(t)
	l.review(t)

	const warning = "::warning::require-reviewed-plan is false: apply does not check that the plan it applies was reviewed\n"

	for _, tc := range []struct {
		name string
		sha  string
	}{
		{"the merged pull request found", ""},
		{"no merged pull request", "beef000000000000000000000000000000000000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := l.runner(t, map[string]string{"require-reviewed-plan": "false"})
			if tc.sha != "" {
				r.env["GITHUB_SHA"] = tc.sha
			}

			if err := action.Run(context.Background(), r.deps, []string{"apply"}); err != nil {
				t.Fatalf("apply: %v\n%s", err, r.stdout.String())
			}

			if out := r.stdout.String(); !strings.HasPrefix(out, warning) || strings.Count(out, "::warning::require-reviewed-plan") != 1 {
				t.Errorf("log does not start with the one warning:\n%s", out)
			}

			if s := r.file(t, "GITHUB_STEP_SUMMARY"); !strings.Contains(s, "No reviewed plan was checked (require-reviewed-plan: false)") {
				t.Errorf("summary:\n%s", s)
			}
		})
	}

	r := l.runner(t, map[string]string{"require-reviewed-plan": "false"})
	r.env["GITHUB_EVENT_NAME"] = "pull_request"

	if err := action.Run(context.Background(), r.deps, []string{"apply"}); err == nil || !strings.HasPrefix(r.stdout.String(), warning) {
		t.Errorf("a refused run: error %v, log:\n%s", err, r.stdout.String())
	}
}
