package action_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/talops/talops/internal/action"
	"github.com/talops/talops/internal/github/githubtest"
	"github.com/talops/talops/internal/testlab"
)

func planRunner(t *testing.T, gh *githubtest.Server) *runner {
	t.Helper()

	r := newRunner(t, testlab.Changed(t), map[string]string{"dir": "examples/homelab", "against": "base", "github-token": "ghs_faketoken"})
	r.dirs["base"] = testlab.Files(t)
	r.env["GITHUB_API_URL"] = gh.URL

	return r
}

func TestPlan_PostsOneStickyCommentLabelsAndOutputs(t *testing.T) {
	t.Parallel()

	gh := githubtest.New(t, "lab", "infra", 7)
	gh.AddComment("looks good to me")

	for run := range 2 {
		r := planRunner(t, gh)

		if err := action.Run(context.Background(), r.deps, []string{"plan"}); err != nil {
			t.Fatalf("run %d: %v\n%s", run, err, r.stdout.String())
		}

		if run == 0 {
			golden(t, "plan-comment.md", gh.Comments()[1])

			out := r.file(t, "GITHUB_OUTPUT")
			for _, want := range []string{"has-changes<<", "\ntrue\n", "upgrades<<", "upgrade-nodes<<", "\nk8s-node3\n", "plan-hash<<"} {
				if !strings.Contains(out, want) {
					t.Errorf("outputs lack %q:\n%s", want, out)
				}
			}

			if !strings.Contains(r.file(t, "GITHUB_STEP_SUMMARY"), "k8s-node5") {
				t.Error("job summary lacks the plan")
			}
		}
	}

	if n := len(gh.Comments()); n != 2 {
		t.Errorf("%d comments, want the user's and one sticky plan", n)
	}

	edits := 0
	for _, w := range gh.Writes() {
		if w.Method == http.MethodPatch {
			edits++
		}
	}

	if edits != 0 {
		t.Errorf("the unchanged comment was edited %d times", edits)
	}

	if got := strings.Join(gh.PRLabels(), ","); got != "talos:upgrade,talos:reboot" {
		t.Errorf("labels = %s", got)
	}
}

func TestPlan_ReadOnlyTokenDegradesToTheSummary(t *testing.T) {
	t.Parallel()

	gh := githubtest.New(t, "lab", "infra", 7)
	gh.ReadOnly()

	r := planRunner(t, gh)

	if err := action.Run(context.Background(), r.deps, []string{"plan"}); err != nil {
		t.Fatalf("a read-only token failed the check: %v", err)
	}

	if !strings.Contains(r.stdout.String(), "::notice::the plan is in the job summary only") {
		t.Errorf("no notice:\n%s", r.stdout.String())
	}

	if !strings.Contains(r.file(t, "GITHUB_STEP_SUMMARY"), "Plan: 6 nodes") {
		t.Error("job summary lacks the plan")
	}
}

func TestPlan_NoSecretReachesGitHubTheSummaryOrTheLog(t *testing.T) {
	t.Parallel()

	gh := githubtest.New(t, "lab", "infra", 7)
	r := planRunner(t, gh)

	if err := action.Run(context.Background(), r.deps, []string{"plan"}); err != nil {
		t.Fatal(err)
	}

	values := labValues(t)

	var sent strings.Builder
	for _, req := range gh.Requests() {
		sent.WriteString(req.Body)
	}

	log := strings.ReplaceAll(r.stdout.String(), "::add-mask::", "")
	for _, line := range strings.Split(r.stdout.String(), "\n") {
		if strings.HasPrefix(line, "::add-mask::") {
			log = strings.Replace(log, strings.TrimPrefix(line, "::add-mask::"), "", 1)
		}
	}

	for what, text := range map[string]string{"GitHub requests": sent.String(), "summary": r.file(t, "GITHUB_STEP_SUMMARY"), "outputs": r.file(t, "GITHUB_OUTPUT"), "log": log} {
		if text == "" {
			t.Fatalf("%s is empty: the scan would prove nothing", what)
		}

		for _, v := range values {
			if strings.Contains(text, v) {
				t.Errorf("%s contains a secret value", what)
			}
		}
	}
}

func TestPlan_BlockedPlanIsNotLabelledNoChanges(t *testing.T) {
	t.Parallel()

	gh := githubtest.New(t, "lab", "infra", 7)

	desired := testlab.Files(t)
	testlab.SetVersions(t, desired, "", "v1.30.0")

	r := newRunner(t, desired, map[string]string{"dir": "examples/homelab", "against": "base", "github-token": "ghs_faketoken"})
	r.dirs["base"] = testlab.Files(t)
	r.env["GITHUB_API_URL"] = gh.URL

	if err := action.Run(context.Background(), r.deps, []string{"plan"}); err == nil {
		t.Fatal("a desired state with errors passed the check")
	}

	if got := strings.Join(gh.PRLabels(), ","); got != "" {
		t.Errorf("labels = %s, want none: nothing was planned", got)
	}

	if out := r.file(t, "GITHUB_OUTPUT"); !strings.Contains(out, "No plan: the desired state has errors") {
		t.Errorf("outputs do not say there is no plan:\n%s", out)
	}
}

func TestPlan_RefusedTokenIsAWarningNotTheForkNotice(t *testing.T) {
	t.Parallel()

	gh := githubtest.New(t, "lab", "infra", 7)
	gh.FailNext(http.MethodPost, "/repos/lab/infra/issues/7/comments", githubtest.BadCredentials())

	r := planRunner(t, gh)

	if err := action.Run(context.Background(), r.deps, []string{"plan"}); err != nil {
		t.Fatalf("a refused token failed the check: %v", err)
	}

	out := r.stdout.String()
	if strings.Contains(out, "::notice::the plan is in the job summary only") || !strings.Contains(out, "::warning::could not post the plan on lab/infra#7") || !strings.Contains(out, "401") {
		t.Errorf("want a warning naming the 401, not the fork's notice:\n%s", out)
	}
}

func TestPlan_LabelsAreThoseOfEveryClustersPlanComment(t *testing.T) {
	t.Parallel()

	const edge = "<!-- talops:plan cluster=edge -->\n### talops plan: edge\n"

	for _, tc := range []struct {
		name    string
		changed bool   // homelab's plan upgrades a node (else it changes nothing)
		author  string // who wrote edge's comment
		other   string // edge's labels line
		seeded  []string
		want    string
	}{
		{
			name: "another cluster upgrades, this one changes nothing", author: githubtest.Bot,
			other: "<!-- talops:plan-labels talos:upgrade,talos:reboot -->", seeded: []string{"talos:upgrade", "talos:reboot"},
			want: "talos:upgrade,talos:reboot",
		},
		{
			name: "this cluster upgrades, another changes nothing", changed: true, author: githubtest.Bot,
			other: "<!-- talops:plan-labels talos:no-changes -->", seeded: []string{"talos:no-changes"},
			want: "talos:upgrade,talos:reboot",
		},
		{
			name: "neither changes anything", author: githubtest.Bot,
			other: "<!-- talops:plan-labels talos:no-changes -->", want: "talos:no-changes",
		},
		{
			name: "somebody else's copy of a plan comment is not trusted", author: "mallory",
			other: "<!-- talops:plan-labels talos:upgrade,talos:reboot -->", seeded: []string{"talos:upgrade"},
			want: "talos:no-changes",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			gh := githubtest.New(t, "lab", "infra", 7)
			gh.AddCommentBy(tc.author, edge+"\n"+tc.other+"\n")

			for _, l := range tc.seeded {
				gh.AddPRLabel(l)
			}

			desired := testlab.Files(t)
			if tc.changed {
				desired = testlab.Changed(t)
			}

			r := newRunner(t, desired, map[string]string{"dir": "examples/homelab", "against": "base", "github-token": "ghs_faketoken"})
			r.dirs["base"] = testlab.Files(t)
			r.env["GITHUB_API_URL"] = gh.URL

			if err := action.Run(context.Background(), r.deps, []string{"plan"}); err != nil {
				t.Fatalf("%v\n%s", err, r.stdout.String())
			}

			if got := strings.Join(gh.PRLabels(), ","); got != tc.want {
				t.Errorf("labels = %s, want %s\n%s", got, tc.want, r.stdout.String())
			}
		})
	}
}
