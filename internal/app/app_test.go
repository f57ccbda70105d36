package app_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/mask"
	"github.com/talops/talops/internal/secrets"
	"github.com/talops/talops/internal/testlab"
)

// deps serves the reference lab as the directory "lab", with env as the environment.
func deps(t *testing.T, env map[string]string) *app.Deps {
	t.Helper()

	files := testlab.Files(t)
	getenv := func(k string) string { return env[k] }

	var m *mask.Masker

	return &app.Deps{
		Outside: app.Outside{
			Getenv:   getenv,
			ReadFile: os.ReadFile,
			OpenDir: func(dir string) (cluster.Files, func() error, error) {
				if dir != "lab" {
					return nil, nil, errors.New("no such directory")
				}

				return files, func() error { return nil }, nil
			},
		},
		Mask:    func(values ...string) { m = mask.New(append(m.Values(), values...)...) },
		Masker:  func() *mask.Masker { return m },
		Secrets: &secrets.Loader{Getenv: getenv, ReadFile: os.ReadFile, Now: func() time.Time { return time.Unix(0, 0) }},
	}
}

func TestPlan_NeedsExactlyOneCurrentState(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		opts app.PlanOptions
		want string
	}{
		{app.PlanOptions{Dir: "lab"}, "plan needs the current state: --base REF, --against DIR or --live"},
		{app.PlanOptions{Dir: "lab", Live: true, Base: "main"}, "--live cannot be used with --base or --against"},
		{app.PlanOptions{Dir: "lab", Base: "main", Against: "base"}, "--base and --against cannot be used together"},
	} {
		_, err := app.Plan(context.Background(), deps(t, nil), tc.opts)

		var usage *app.UsageError
		if !errors.As(err, &usage) || err.Error() != tc.want {
			t.Errorf("%+v: error %v, want %q", tc.opts, err, tc.want)
		}
	}
}

func TestPlan_AgainstAnotherDirectoryFindsNoChange(t *testing.T) {
	t.Parallel()

	d := deps(t, nil)

	res, err := app.Plan(context.Background(), d, app.PlanOptions{Dir: "lab", Against: "lab", Offline: true})
	if err != nil {
		t.Fatal(err)
	}

	if res.Plan.HasChanges() || res.Bump == nil || res.Nodes == 0 {
		t.Errorf("plan %+v, bump %+v, nodes %d", res.Plan, res.Bump, res.Nodes)
	}
}

func TestApply_RefusesAnEventBeforeReadingAnything(t *testing.T) {
	t.Parallel()

	d := deps(t, map[string]string{"GITHUB_EVENT_NAME": "pull_request_target"})
	d.OpenDir = func(string) (cluster.Files, func() error, error) {
		t.Error("the repository was opened")

		return nil, nil, errors.New("not here")
	}

	_, err := app.Apply(context.Background(), d, app.ApplyOptions{Dir: "lab", Review: func(context.Context, string) (string, string, error) {
		t.Error("the review was looked up")

		return "", "", nil
	}})

	var refused *app.RefusedError
	if !errors.As(err, &refused) || !strings.Contains(err.Error(), "apply does not run for pull_request_target events") {
		t.Errorf("error %v", err)
	}
}

func TestApply_ReviewIsAskedWithTheClusterNameBeforeTheTalosconfigIsRead(t *testing.T) {
	t.Parallel()

	d := deps(t, map[string]string{"TALOSCONFIG": "/nonexistent/talosconfig"})

	var asked string

	_, err := app.Apply(context.Background(), d, app.ApplyOptions{Dir: "lab", Mode: "auto", Parallel: 1, Review: func(_ context.Context, cluster string) (string, string, error) {
		asked = cluster

		return "", "", nil
	}})

	if asked != "homelab" {
		t.Errorf("review asked for %q, want homelab", asked)
	}

	if err == nil || !strings.Contains(err.Error(), "read talosconfig /nonexistent/talosconfig") {
		t.Errorf("error %v, want the talosconfig read after the review", err)
	}
}

func TestApply_AReviewThatFailsRefusesBeforeTheTalosconfigIsRead(t *testing.T) {
	t.Parallel()

	d := deps(t, nil)
	d.ReadFile = func(name string) ([]byte, error) {
		t.Errorf("%s was read", name)

		return nil, os.ErrNotExist
	}

	why := &app.RefusedError{Reasons: []string{"no merged pull request"}}

	_, err := app.Apply(context.Background(), d, app.ApplyOptions{Dir: "lab", Review: func(context.Context, string) (string, string, error) {
		return "", "", why
	}})

	if !errors.Is(err, why) {
		t.Errorf("error %v, want the review's", err)
	}
}
