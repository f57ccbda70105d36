package cli

import (
	"context"
	"flag"
	"io"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/report"
)

// ValidateOptions are validate's inputs.
type ValidateOptions struct {
	Deps *Deps

	// ValidateOptions are validate's own options, declared once, in the application layer.
	app.ValidateOptions

	Format string
}

// ValidateResult is what validate found.
type ValidateResult = app.ValidateResult

func validateFlags(d *Deps, args []string) (*ValidateOptions, error) {
	opts := &ValidateOptions{Deps: d}

	fs := newFlags(d, "validate", "validate [--dir D] [--strict] [--offline] [--mode metal|cloud] [--format text|json|github] [FILE...]")
	fs.StringVar(&opts.Dir, "dir", ".", "repository directory holding talops.yaml")
	fs.BoolVar(&opts.Strict, "strict", false, "treat warnings as errors")
	fs.StringVar(&opts.Format, "format", report.FormatText, "output format: text, json or github")
	fs.StringVar(&opts.Mode, "mode", "metal", "validation mode for standalone files: metal or cloud")
	fs.BoolVar(&opts.Offline, "offline", false, "never ask the Image Factory about a Talos release the embedded data lacks")

	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}

	opts.Files = fs.Args()

	dirSet := false
	fs.Visit(func(f *flag.Flag) { dirSet = dirSet || f.Name == "dir" })

	if dirSet && len(opts.Files) > 0 {
		return nil, &app.UsageError{Msg: "validate takes --dir or FILE arguments, not both"}
	}

	if err := oneOf("format", opts.Format, report.FindingFormats); err != nil {
		return nil, err
	}

	if err := oneOf("mode", opts.Mode, []string{"metal", "cloud"}); err != nil {
		return nil, err
	}

	return opts, nil
}

func runValidate(ctx context.Context, d *Deps, args []string) error {
	opts, err := validateFlags(d, args)
	if err != nil {
		return err
	}

	res, err := Validate(ctx, opts)
	if err != nil {
		// Tools read the JSON and the annotations, not stderr: a typo lands on its line there too.
		fs, placed := app.InputFindings(err)
		if !placed || opts.Format == report.FormatText {
			return err
		}

		res = &ValidateResult{Findings: fs}
	}

	view := d.View
	if opts.Format == report.FormatGitHub {
		view = d.CommandsView // annotations are talops' own commands
	}

	if err := view(func(w io.Writer) error { return report.Findings(w, opts.Format, res.Findings, res.Nodes) }); err != nil {
		return err
	}

	if finding.HasErrors(res.Findings) {
		return &FailedError{Msg: "validation failed"}
	}

	return nil
}

// Validate checks a repository, or standalone files, and returns the findings.
func Validate(ctx context.Context, opts *ValidateOptions) (*ValidateResult, error) {
	return app.Validate(ctx, opts.Deps.App(), opts.ValidateOptions)
}
