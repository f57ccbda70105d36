package action

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/talops/talops/internal/github"
)

// event holds what talops reads from the workflow's event payload.
type event struct {
	PR *github.PR
	// BaseSHA is the pull request's base commit: the current state a plan compares with.
	BaseSHA string
	// Ref is the ref the event ran on, DefaultBranch the repository's default branch
	// (either may be empty).
	Ref, DefaultBranch string
}

// event reads the event payload, once per run.
func (a *runner) event() (*event, error) {
	if a.ev == nil && a.evErr == nil {
		a.ev, a.evErr = a.readEvent()
	}

	return a.ev, a.evErr
}

func (a *runner) readEvent() (*event, error) {
	ev := &event{Ref: a.d.Getenv("GITHUB_REF")}

	path := a.d.Getenv("GITHUB_EVENT_PATH")
	if path == "" {
		return ev, nil
	}

	data, err := a.d.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the event payload: %w", err)
	}

	var payload struct {
		Ref         string `json:"ref"`
		PullRequest *struct {
			Number int `json:"number"`
			Base   struct {
				SHA string `json:"sha"`
			} `json:"base"`
		} `json:"pull_request"`
		Repository struct {
			Name          string `json:"name"`
			DefaultBranch string `json:"default_branch"`
			Owner         struct {
				Login string `json:"login"`
			} `json:"owner"`
		} `json:"repository"`
	}

	if err := json.Unmarshal(data, &payload); err != nil {
		return nil, fmt.Errorf("parse the event payload %s: %w", path, err)
	}

	ev.Ref = orDefault(payload.Ref, ev.Ref)
	ev.DefaultBranch = payload.Repository.DefaultBranch

	if payload.PullRequest == nil {
		return ev, nil
	}

	owner, repo, _ := strings.Cut(a.d.Getenv("GITHUB_REPOSITORY"), "/")
	if owner == "" || repo == "" {
		owner, repo = payload.Repository.Owner.Login, payload.Repository.Name
	}

	ev.PR = &github.PR{Owner: owner, Repo: repo, Number: payload.PullRequest.Number}
	ev.BaseSHA = payload.PullRequest.Base.SHA

	return ev, nil
}
