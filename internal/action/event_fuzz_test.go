package action

import (
	"strings"
	"testing"

	"github.com/sethvargo/go-githubactions"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/door"
	"github.com/talops/talops/internal/rollout"
)

// FuzzEventPayload reads any event payload a workflow could hand over: an event or an
// error, never a panic; an error names the payload's path and never quotes it; and apply
// only ever runs on what the payload itself says is the default branch.
func FuzzEventPayload(f *testing.F) {
	for _, seed := range []string{
		`{"number": 7, "pull_request": {"number": 7, "base": {"sha": "aaaa"}, "head": {"sha": "bbbb"}}}`,
		`{"ref": "refs/heads/main", "repository": {"name": "infra", "default_branch": "main", "owner": {"login": "lab"}}}`,
		`{"ref": "refs/heads/feature", "repository": {"default_branch": "main"}}`,
		`{"pull_request": null}`,
		`{"pull_request": {"number": "7"}}`,
		`{"repository": {"default_branch": ""}}`,
		`[]`, `null`, ``, `{"ref": 1}`,
	} {
		f.Add([]byte(seed), "refs/heads/main")
	}

	f.Fuzz(func(t *testing.T, payload []byte, ref string) {
		env := map[string]string{"GITHUB_EVENT_PATH": "/runner/event.json", "GITHUB_REF": ref, "GITHUB_REPOSITORY": "lab/infra"}
		d := &door.Deps{
			Outside: app.Outside{
				Getenv:   func(k string) string { return env[k] },
				ReadFile: func(string) ([]byte, error) { return payload, nil },
			},
		}
		a := &runner{d: d, gha: githubactions.New(githubactions.WithGetenv(d.Getenv))}

		ev, err := a.event()
		if err != nil {
			if !strings.Contains(err.Error(), "/runner/event.json") {
				t.Errorf("error %q does not name the payload", err)
			}

			if len(payload) >= 8 && strings.Contains(err.Error(), string(payload)) {
				t.Errorf("error %q quotes the payload", err)
			}

			return
		}

		if ev == nil {
			t.Fatal("no event and no error")
		}

		if rollout.BranchRefusal(ev.Ref, ev.DefaultBranch) == "" && (ev.DefaultBranch == "" || ev.Ref != "refs/heads/"+ev.DefaultBranch) {
			t.Errorf("apply would run on ref %q with default branch %q", ev.Ref, ev.DefaultBranch)
		}

		if ev.PR != nil && (ev.PR.Owner == "" || ev.PR.Repo == "") {
			t.Errorf("pull request %+v without its repository", ev.PR)
		}
	})
}
