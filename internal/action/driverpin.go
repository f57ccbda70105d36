package action

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/github"
	"github.com/talops/talops/internal/rules"
)

// InputFixDriverPin moves an exact nvidia.driver pin on a pull request's branch (the
// versions action).
const InputFixDriverPin = "fix-driver-pin"

// githubAPI is the REST client with the action's token.
func (a *runner) githubAPI() (*github.Client, error) {
	return github.New(a.d.HTTPClient, orDefault(a.d.Getenv("GITHUB_API_URL"), "https://api.github.com"), a.token())
}

// commitPinMove makes the pin move versions made in the work tree a commit of the pull
// request's own branch, and says it in the title: a Renovate pull request that bumps Talos
// carries the driver change it brings, visibly. The branch's talops.yaml is edited, not the
// work tree's, which is a merge with the base: the commit changes that one line alone.
func (a *runner) commitPinMove(ctx context.Context, pr github.PR, move rules.Change, talos rules.Change) error {
	api, err := a.githubAPI()
	if err != nil {
		return err
	}

	pull, err := api.Pull(ctx, pr)
	if err != nil {
		return err
	}

	if pull.HeadRepo != pr.Owner+"/"+pr.Repo {
		return fmt.Errorf("move the nvidia.driver pin on %s: its branch is in %s, and talops commits only to a branch of %s/%s", pr, pull.HeadRepo, pr.Owner, pr.Repo)
	}

	if err := a.commitPin(ctx, api, pr, pull.HeadRef, move, talos); err != nil {
		return err
	}

	want := "driver " + move.From + " → " + move.To
	if strings.Contains(pull.Title, want) {
		return nil
	}

	err = api.EditTitle(ctx, pr, pull.Title+" ("+want+")")
	if errors.Is(err, github.ErrReadOnly) {
		return fmt.Errorf("edit the title of %s: the token may not write pull requests: give the job permissions: pull-requests: write", pr)
	}

	return err
}

// commitPin commits the pin move to the branch, unless the branch pins move.To already (a
// run before this one moved it).
func (a *runner) commitPin(ctx context.Context, api *github.Client, pr github.PR, branch string, move, talos rules.Change) error {
	file := path.Join(filepath.ToSlash(a.dir()), cluster.FileName)

	f, err := api.File(ctx, pr.Owner, pr.Repo, file, branch)
	if err != nil {
		return err
	}

	if _, err := cluster.SetValue(f.Data, "nvidia.driver", move.To, move.To); err == nil {
		a.gha.Infof("%s pins nvidia.driver %s already", branch, move.To)

		return nil
	}

	moved, err := cluster.SetValue(f.Data, "nvidia.driver", move.From, move.To)
	if err != nil {
		return fmt.Errorf("move the nvidia.driver pin on %s: %w", branch, err)
	}

	msg := fmt.Sprintf("nvidia.driver %s → %s: the driver of Talos %s\n\nThe exact pin moves with the Talos release's driver (talops versions --fix-driver-pin).", move.From, move.To, talos.To)

	commit, err := api.UpdateFile(ctx, pr.Owner, pr.Repo, file, branch, msg, moved, f.SHA)
	if errors.Is(err, github.ErrReadOnly) {
		return fmt.Errorf("commit the nvidia.driver pin to %s: the token may not write the repository's contents: give the job permissions: contents: write", branch)
	}

	if err != nil {
		return err
	}

	a.gha.Infof("committed nvidia.driver %s → %s to %s (%s)", move.From, move.To, branch, commit)

	return nil
}
