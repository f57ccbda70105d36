package action

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/door"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/github"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/report"
)

// Inputs of the plan action.
const (
	InputBase        = "base"
	InputAgainst     = "against"
	InputGitHubToken = "github-token"
	InputComment     = "comment"
	InputLive        = "live"
	InputTalosconfig = "talosconfig"
	// InputCommentAuthor is the login the token comments as: only its comments are edited
	// or trusted (github-actions[bot] for the workflow's own token).
	InputCommentAuthor = "comment-author"
)

// talosconfigInput names the talosconfig input as a file to the plan: its content never
// touches the disk.
const talosconfigInput = "(input talosconfig)"

// talosconfigInput serves the talosconfig input, when given, as a file only the
// talosconfig loader asks for.
func (a *runner) talosconfigInput() *door.Deps {
	if tc := a.gha.GetInput(InputTalosconfig); tc != "" {
		return a.d.WithFile(talosconfigInput, []byte(tc))
	}

	return a.d
}

// talosconfig is the talosconfig file to read ("": the default talosconfig).
func (a *runner) talosconfig() string {
	if a.gha.GetInput(InputTalosconfig) == "" {
		return ""
	}

	return talosconfigInput
}

// Labels the plan puts on a pull request.
var planLabels = []github.Label{
	{Name: "talos:upgrade", Color: "d93f0b", Description: "talops: merging upgrades Talos on nodes"},
	{Name: "talos:reboot", Color: "fbca04", Description: "talops: merging reboots nodes"},
	{Name: "talos:no-changes", Color: "0e8a16", Description: "talops: merging changes nothing on nodes"},
}

func (a *runner) plan(ctx context.Context) (*result, error) {
	ev, err := a.event()
	if err != nil {
		return nil, err
	}

	comment := true
	if v := a.gha.GetInput(InputComment); v != "" {
		if comment, err = boolInput(a.gha, InputComment); err != nil {
			return nil, err
		}
	}

	offline, err := boolInput(a.gha, InputOffline)
	if err != nil {
		return nil, err
	}

	live, err := boolInput(a.gha, InputLive)
	if err != nil {
		return nil, err
	}

	opts := app.PlanOptions{
		Dir: a.dir(), Base: a.gha.GetInput(InputBase), Against: a.gha.GetInput(InputAgainst),
		Live: live, Talosconfig: a.talosconfig(), Offline: offline,
	}

	if !live && opts.Base == "" && opts.Against == "" && ev.BaseSHA != "" {
		opts.Base = ev.BaseSHA
	}

	res, err := app.Plan(ctx, a.d.App(), opts)
	if err != nil {
		return nil, err
	}

	var unreadable string
	if live {
		// Refused when it read no node: shown, output and posted without its hash.
		res.Plan, unreadable = door.LivePlan(res.Plan)
	}

	a.maskSecrets()

	full, err := report.PlanMarkdown(res.Plan, res.Findings, res.Nodes, report.PlanView{Version: a.d.TalopsVersion(), Limit: report.SummaryLimit, Bump: res.Bump})
	if err != nil {
		return nil, err
	}

	out := &result{
		commands: annotations(res.Findings),
		log:      report.PlanText(res.Plan, nil, res.Nodes, false),
		summary:  full,
		outputs:  planOutputs(res.Plan),
	}

	if comment && ev.PR != nil {
		out.post = func() { a.postPlan(ctx, ev, res, full) }
	}

	switch {
	case finding.HasErrors(res.Findings):
		out.failed = "the desired state has errors"
	case unreadable != "":
		out.failed = unreadable
	}

	return out, nil
}

// postPlan updates the sticky comment and the labels. A token that may not write (a
// fork's) degrades to the job summary with a notice; it does not fail the check.
func (a *runner) postPlan(ctx context.Context, ev *event, res *app.PlanResult, full string) {
	api, err := a.githubAPI()
	if err != nil {
		a.gha.Warningf("%s", err)

		return
	}

	labels := labelsFor(res.Plan)
	marker := labelsMarker(labels) + "\n"

	body, err := commentBody(res, full, len(marker), a.d.TalopsVersion())
	if err != nil {
		a.gha.Warningf("render the plan comment: %s", err)

		return
	}

	body = a.d.Masker().String(body) + marker

	result, err := github.Sticky(ctx, api, *ev.PR, a.commentAuthor(), report.Marker(res.Plan.Cluster), body)
	if err == nil {
		a.gha.Infof("plan comment on %s: %s", ev.PR, result)

		// Read after our comment is posted, so that of two jobs the later one sees both.
		var comments []github.Comment
		if comments, err = api.ListComments(ctx, *ev.PR); err == nil {
			want := prLabels(comments, a.commentAuthor(), report.Marker(res.Plan.Cluster), labels)
			err = github.SyncLabels(ctx, api, *ev.PR, planLabels, want)
		}
	}

	switch {
	case errors.Is(err, github.ErrReadOnly):
		a.gha.Noticef("the plan is in the job summary only: %s", err)
	case err != nil:
		a.gha.Warningf("could not post the plan on %s: %s", ev.PR, a.d.Masker().String(err.Error()))
	}
}

// commentBody is the plan comment: the job summary's markdown when it fits a comment
// beside reserve bytes of hidden lines (a body under the limit is the whole plan either
// way), else a shorter rendering that points at the job summary.
func commentBody(res *app.PlanResult, full string, reserve int, version string) (string, error) {
	if len(full)+reserve < report.CommentLimit {
		return full, nil
	}

	return report.PlanMarkdown(res.Plan, res.Findings, res.Nodes, report.PlanView{
		Version:     version,
		SummaryNote: "the job summary of this run",
		Bump:        res.Bump,
	})
}

func labelsFor(p *plan.Plan) []string {
	if p.Blocked {
		return nil // nothing was planned: "no changes" would be a claim the plan cannot make
	}

	counts := p.Count()

	var out []string

	if counts[plan.Upgrade] > 0 {
		out = append(out, "talos:upgrade")
	}

	if counts[plan.Reboot] > 0 || counts[plan.Upgrade] > 0 {
		out = append(out, "talos:reboot")
	}

	if !p.HasChanges() {
		out = append(out, "talos:no-changes")
	}

	return out
}

func planOutputs(p *plan.Plan) map[string]string {
	counts := p.Count()

	return map[string]string{
		"has-changes":   strconv.FormatBool(p.HasChanges()),
		"reboots":       strconv.Itoa(counts[plan.Reboot]),
		"upgrades":      strconv.Itoa(counts[plan.Upgrade]),
		"reboot-nodes":  strings.Join(p.Names(plan.Reboot), ","),
		"upgrade-nodes": strings.Join(p.Names(plan.Upgrade), ","),
		"unknown-nodes": strings.Join(p.Names(plan.Unknown), ","),
		"plan-hash":     p.Hash,
		"summary":       p.Summary(),
	}
}

// commentAuthor is the login talops' comments are written by.
func (a *runner) commentAuthor() string {
	return orDefault(a.gha.GetInput(InputCommentAuthor), github.DefaultAuthor)
}
