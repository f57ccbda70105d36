package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/door"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/report"
)

// PlanOptions are plan's inputs.
type PlanOptions struct {
	Deps *Deps

	// PlanOptions are plan's own options, declared once, in the application layer.
	app.PlanOptions

	Format string
	// DetailedExitCode makes changes exit 2.
	DetailedExitCode bool
}

func planFlags(d *Deps, args []string) (*PlanOptions, error) {
	opts := &PlanOptions{Deps: d}

	fs := newFlags(d, "plan", "plan [--dir D] (--base REF | --against DIR | --live [--talosconfig FILE]) [--offline] [--format text|json|markdown] [--detailed-exitcode]")
	fs.StringVar(&opts.Dir, "dir", ".", "repository directory holding talops.yaml")
	fs.StringVar(&opts.Base, "base", "", "git ref of the current state (for a pull request: its base SHA)")
	fs.StringVar(&opts.Against, "against", "", "directory holding the current state")
	fs.BoolVar(&opts.Live, "live", false, "read the current state from the nodes over the Talos API")
	fs.StringVar(&opts.Talosconfig, "talosconfig", "", "talosconfig for --live (default $TALOSCONFIG, then ~/.talos/config)")
	fs.StringVar(&opts.Format, "format", report.FormatText, "output format: text, json or markdown")
	fs.BoolVar(&opts.DetailedExitCode, "detailed-exitcode", false, "exit 0 without changes, 2 with changes, 1 on errors")
	fs.BoolVar(&opts.Offline, "offline", false, "never ask the Image Factory about a Talos release the embedded data lacks")

	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}

	if err := oneOf("format", opts.Format, report.PlanFormats); err != nil {
		return nil, err
	}

	return opts, nil
}

func runPlan(ctx context.Context, d *Deps, args []string) error {
	opts, err := planFlags(d, args)
	if err != nil {
		return err
	}

	res, err := Plan(ctx, opts)
	if err != nil {
		// Tools read the JSON, not stderr: a typo lands on its line there too, with no plan.
		fs, placed := app.InputFindings(err)
		if !placed || opts.Format == report.FormatText {
			return err
		}

		res = &app.PlanResult{Plan: plan.BlockedPlan(""), Findings: fs}
	}

	shown, unreadable := res.Plan, ""
	if opts.Live {
		// A plan of nothing read is no answer: a nightly drift check must not pass on it,
		// and no apply may be given its hash.
		shown, unreadable = door.LivePlan(res.Plan)
	}

	view := report.PlanView{Color: d.Color(), Version: d.TalopsVersion(), Bump: res.Bump}
	if err := d.View(func(w io.Writer) error {
		return report.WritePlan(w, opts.Format, shown, res.Findings, res.Nodes, view)
	}); err != nil {
		return err
	}

	switch {
	case finding.HasErrors(res.Findings):
		return &FailedError{Msg: "the desired state has errors"}
	case unreadable != "":
		return &FailedError{Msg: unreadable}
	case opts.DetailedExitCode && res.Plan.Count()[plan.Unknown] > 0:
		// Neither "no changes" nor "changes": some node could not be read.
		return &FailedError{Msg: fmt.Sprintf("cannot tell whether %s drifted: not readable", strings.Join(res.Plan.Names(plan.Unknown), ", "))}
	case opts.DetailedExitCode && res.Plan.HasChanges():
		return &ChangesError{}
	}

	return nil
}

// Plan renders both states, validates the desired one and computes the plan.
func Plan(ctx context.Context, opts *PlanOptions) (*app.PlanResult, error) {
	return app.Plan(ctx, opts.Deps.App(), opts.PlanOptions)
}
