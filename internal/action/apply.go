package action

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/door"
	"github.com/talops/talops/internal/github"
	"github.com/talops/talops/internal/report"
	"github.com/talops/talops/internal/rollout"
)

// Inputs of the apply action (besides dir, talosconfig, github-token and the secrets).
const (
	InputParallel            = "parallel"
	InputMode                = "mode"
	InputDryRun              = "dry-run"
	InputProxmoxImages       = "proxmox-images"
	InputRequireReviewedPlan = "require-reviewed-plan"
	InputReviewedAgainst     = "reviewed-against"
	InputEtcdBackup          = "etcd-backup"
	InputNoEtcdBackup        = "no-etcd-backup"
	InputNodes               = "nodes"
	InputKubeconfig          = "kubeconfig"
	InputNoDrain             = "no-drain"
	InputDrainTimeout        = "drain-timeout"
	InputProxmoxReset        = "proxmox-reset"
	InputProxmoxVMs          = "proxmox-vms"
	InputAllowRemove         = "allow-remove"
	InputNoLock              = "no-lock"
	InputIgnoreWindow        = "ignore-window"
	InputRollback            = "rollback"
)

// kubeconfigInput names the kubeconfig input as a file to apply: like the talosconfig
// input, its content never touches the disk, and its key is masked once read.
const kubeconfigInput = "(input kubeconfig)"

// reviewed is what the merged pull request says was reviewed.
type reviewed struct {
	pr *github.PR
	// base is the pull request's base commit; hash the hash its plan comment carries.
	base, hash string
}

func (a *runner) apply(ctx context.Context) (*result, error) {
	opts, err := a.applyOptions()
	if err != nil {
		return nil, err
	}

	require, err := a.requireReview()
	if err != nil {
		return nil, err
	}

	var (
		rev   *reviewed
		api   github.API
		name  string
		notes []string
	)

	// Apply asks for the review once it knows the cluster's name, and only for an event it
	// runs for: on a pull request, GitHub is not asked either.
	opts.Review = func(ctx context.Context, cluster string) (string, string, error) {
		name = cluster

		if err := a.defaultBranchOnly(); err != nil {
			return "", "", err
		}

		if api, rev, err = a.reviewedPlan(ctx, name, require); err != nil {
			return "", "", err
		}

		hash, base := a.planCheck(opts, rev)
		notes = a.planNotes(rev, require)

		return hash, base, nil
	}

	res, err := door.Apply(ctx, opts)

	a.maskSecrets()

	if res == nil || res.Report == nil {
		var refused *door.RefusedError
		if errors.As(err, &refused) && rev != nil && rev.pr != nil {
			a.postApply(ctx, api, *rev.pr, name, report.ApplyRefusedMarkdown(name, a.d.Masker().String(err.Error())))
		}

		return nil, err
	}

	out := &result{
		summary: report.ApplyMarkdown(res.Report, report.ApplyView{Commit: a.d.Getenv("GITHUB_SHA"), Notes: notes}),
		err:     err,
	}

	if rev != nil && rev.pr != nil {
		out.post = func() {
			a.postApply(ctx, api, *rev.pr, name, report.ApplyMarkdown(res.Report, report.ApplyView{Marker: true, Commit: a.d.Getenv("GITHUB_SHA"), Notes: notes}))
		}
	}

	if out.outputs, err = applyOutputs(res.Report); err != nil {
		return nil, err
	}

	return out, nil
}

// requireReview reads require-reviewed-plan (default true). Every run with false says so
// first, whatever happens next: a check turned off must not go unnoticed in the runs that
// follow the one that turned it off.
func (a *runner) requireReview() (bool, error) {
	if a.gha.GetInput(InputRequireReviewedPlan) == "" {
		return true, nil
	}

	require, err := boolInput(a.gha, InputRequireReviewedPlan)
	if err == nil && !require {
		a.gha.Warningf("%s is false: apply does not check that the plan it applies was reviewed", InputRequireReviewedPlan)
	}

	return require, err
}

// applyOptions maps the inputs onto apply's options.
func (a *runner) applyOptions() (*door.ApplyOptions, error) {
	opts := &door.ApplyOptions{
		Deps: a.d,
		ApplyOptions: app.ApplyOptions{
			Dir: a.dir(),
			// "": talops.yaml's apply: mode, else auto.
			Mode:            a.gha.GetInput(InputMode),
			ReviewedAgainst: a.gha.GetInput(InputReviewedAgainst),
			Parallel:        1,
			Talosconfig:     a.talosconfig(),
			// Inside the workspace, where the workflow uploads it as an artifact.
			EtcdBackup: orDefault(a.gha.GetInput(InputEtcdBackup), "talops-etcd-backups"),
		},
		// A workflow has nobody to ask: the review was the pull request's.
		Yes:    true,
		Format: report.FormatText,
	}

	for _, name := range strings.Split(a.gha.GetInput(InputNodes), ",") {
		if name = strings.TrimSpace(name); name != "" {
			opts.Nodes = append(opts.Nodes, name)
		}
	}

	if v := a.gha.GetInput(InputParallel); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, &app.UsageError{Msg: fmt.Sprintf("input %s must be a number of 1 or more, got %q", InputParallel, v)}
		}

		opts.Parallel = n
	}

	var err error

	if kc := a.gha.GetInput(InputKubeconfig); kc != "" {
		opts.Deps, opts.Kubeconfig = a.d.WithFile(kubeconfigInput, []byte(kc)), kubeconfigInput
	}

	opts.DrainTimeout = rollout.DefaultDrainTimeout

	if v := a.gha.GetInput(InputDrainTimeout); v != "" {
		t, err := time.ParseDuration(v)
		if err != nil || t <= 0 {
			return nil, &app.UsageError{Msg: fmt.Sprintf("input %s must be a positive duration (5m, 90s), got %q", InputDrainTimeout, v)}
		}

		opts.DrainTimeout = t
	}

	// Each node's progress folds into a group of the step's log.
	groups := &nodeGroups{
		write:    func(s string) { _ = a.d.Out(s) },
		group:    func(title string) { a.gha.Group(a.d.Masker().String(title)) },
		endGroup: a.gha.EndGroup,
	}
	opts.Progress = groups.step

	for name, dst := range map[string]*bool{InputDryRun: &opts.DryRun, InputRegister: &opts.Register, InputProxmoxImages: &opts.ProxmoxImages, InputNoEtcdBackup: &opts.NoEtcdBackup, InputNoDrain: &opts.NoDrain, InputProxmoxReset: &opts.ProxmoxReset, InputProxmoxVMs: &opts.ProxmoxVMs, InputAllowRemove: &opts.AllowRemove, InputNoLock: &opts.NoLock, InputIgnoreWindow: &opts.IgnoreWindow, InputRollback: &opts.Rollback} {
		if *dst, err = boolInput(a.gha, name); err != nil {
			return nil, err
		}
	}

	if opts.NoEtcdBackup {
		opts.EtcdBackup = ""
	}

	return opts, nil
}

// defaultBranchOnly refuses a run on a ref other than the repository's default branch,
// when the event payload names both: only what was merged there was reviewed.
func (a *runner) defaultBranchOnly() error {
	ev, err := a.event()
	if err != nil {
		return err
	}

	if why := rollout.BranchRefusal(ev.Ref, ev.DefaultBranch); why != "" {
		return &door.RefusedError{Reasons: []string{why}}
	}

	return nil
}

// reviewedPlan finds the pull request merged as GITHUB_SHA and, when a reviewed plan is
// required, the hash its plan comment carries. Without a merged pull request or its plan
// comment, a required review refuses; otherwise the run goes on with a warning.
func (a *runner) reviewedPlan(ctx context.Context, name string, require bool) (github.API, *reviewed, error) {
	refuse := func(why string) (github.API, *reviewed, error) {
		if require {
			return nil, nil, &door.RefusedError{Reasons: []string{why + "; set require-reviewed-plan: false to apply the live plan unreviewed"}}
		}

		a.gha.Warningf("%s: applying the live plan without checking a reviewed hash", why)

		return nil, nil, nil
	}

	sha := a.d.Getenv("GITHUB_SHA")
	owner, repo, _ := strings.Cut(a.d.Getenv("GITHUB_REPOSITORY"), "/")

	if sha == "" || owner == "" || repo == "" {
		return refuse("GITHUB_SHA and GITHUB_REPOSITORY do not name a commit, so no merged pull request can be found")
	}

	api, err := a.githubAPI()
	if err != nil {
		return refuse(err.Error())
	}

	pulls, err := api.CommitPulls(ctx, owner, repo, sha)
	if err != nil {
		return refuse("the merged pull request could not be looked up: " + a.d.Masker().String(err.Error()))
	}

	merged := mergedPull(pulls, sha)
	if merged == nil {
		return refuse(fmt.Sprintf("no merged pull request was found for %s", sha))
	}

	rev := &reviewed{pr: &github.PR{Owner: owner, Repo: repo, Number: merged.Number}, base: merged.BaseSHA}

	if !require {
		a.gha.Infof("%s is false: applying the live plan without checking the hash reviewed on %s", InputRequireReviewedPlan, rev.pr)

		return api, rev, nil
	}

	comments, err := api.ListComments(ctx, *rev.pr)
	if err != nil {
		return refuse(fmt.Sprintf("the plan comment of %s could not be read: %s", rev.pr, a.d.Masker().String(err.Error())))
	}

	// The first of talops' own comments with the marker is the one the plan action keeps
	// up to date (github.Sticky edits the first); anybody else's copy is not trusted.
	for _, c := range comments {
		if !github.Ours(c, a.commentAuthor(), report.Marker(name)) {
			continue
		}

		hash, ok := report.ParseHashMarker(c.Body)
		if !ok {
			return refuse(fmt.Sprintf("the plan comment of %s on %s carries no plan hash (was the desired state blocked by errors?)", name, rev.pr))
		}

		rev.hash = hash

		return api, rev, nil
	}

	return refuse(fmt.Sprintf("%s has no talops plan comment for cluster %s", rev.pr, name))
}

// mergedPull is the merged pull request of sha: the one whose merge made it, else the
// first merged one listed (a rebase merge has no merge commit of its own).
func mergedPull(pulls []github.Pull, sha string) *github.Pull {
	var first *github.Pull

	for i, p := range pulls {
		if !p.Merged {
			continue
		}

		if p.MergeCommitSHA == sha {
			return &pulls[i]
		}

		if first == nil {
			first = &pulls[i]
		}
	}

	return first
}

// planCheck is the reviewed plan's hash and the base it was computed against ("", "":
// none was found to check).
func (a *runner) planCheck(opts *door.ApplyOptions, rev *reviewed) (hash, base string) {
	if rev == nil || rev.hash == "" {
		return "", ""
	}

	against := opts.ReviewedAgainst
	if against == "" {
		against = rev.base
	}

	a.gha.Infof("checking the plan reviewed on %s (hash %s, against %s)", rev.pr, rev.hash, against)

	return rev.hash, rev.base
}

// planNotes say in the summary how the plan was checked.
func (a *runner) planNotes(rev *reviewed, require bool) []string {
	switch {
	case rev != nil && rev.hash != "":
		return []string{fmt.Sprintf("The plan reviewed on %s (hash `%s`) matched.", rev.pr, rev.hash[:12])}
	case require:
		return nil
	default:
		return []string{"No reviewed plan was checked (require-reviewed-plan: false): the live plan was applied."}
	}
}

// token is the github-token input, else GITHUB_TOKEN.
func (a *runner) token() string {
	return orDefault(a.gha.GetInput(InputGitHubToken), a.d.Getenv("GITHUB_TOKEN"))
}

// postApply reports back on the merged pull request. A token that may not write
// degrades to the job summary with a notice.
func (a *runner) postApply(ctx context.Context, api github.API, pr github.PR, cluster, body string) {
	result, err := github.Sticky(ctx, api, pr, a.commentAuthor(), report.ApplyMarker(cluster), a.d.Masker().String(body))

	switch {
	case errors.Is(err, github.ErrReadOnly):
		a.gha.Noticef("the apply report is in the job summary only: %s", err)
	case err != nil:
		a.gha.Warningf("could not post the apply report on %s: %s", pr, a.d.Masker().String(err.Error()))
	default:
		a.gha.Infof("apply comment on %s: %s", pr, result)
	}
}

func applyOutputs(r *rollout.Report) (map[string]string, error) {
	var buf, line bytes.Buffer
	if err := report.ApplyJSON(&buf, r); err != nil {
		return nil, err
	}

	if err := json.Compact(&line, buf.Bytes()); err != nil {
		return nil, err
	}

	count := r.Count()

	return map[string]string{
		"applied": strconv.Itoa(count[rollout.Applied]),
		"failed":  strconv.Itoa(count[rollout.Failed]),
		"skipped": strconv.Itoa(count[rollout.Skipped]),
		"report":  line.String(),
	}, nil
}
