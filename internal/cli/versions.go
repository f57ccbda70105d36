package cli

import (
	"context"
	"io"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/report"
	"github.com/talops/talops/internal/rules"
)

// VersionsOptions are versions' inputs.
type VersionsOptions struct {
	Deps *Deps

	// VersionsOptions are versions' own options, declared once, in the application layer.
	app.VersionsOptions

	Format string
}

func versionsFlags(d *Deps, args []string) (*VersionsOptions, error) {
	opts := &VersionsOptions{Deps: d}

	fs := newFlags(d, "versions", "versions [--dir D] (--base REF | --against DIR) [--offline] [--fix-driver-pin] [--format text|json|markdown]")
	fs.StringVar(&opts.Dir, "dir", ".", "repository directory holding talops.yaml (the new state)")
	fs.StringVar(&opts.Base, "base", "", "git ref of the state to compare with (read from git, the work tree is not touched)")
	fs.StringVar(&opts.Against, "against", "", "directory holding the state to compare with")
	fs.StringVar(&opts.Format, "format", report.FormatText, "output format: text, json or markdown")
	fs.BoolVar(&opts.Offline, "offline", false, "never ask the Image Factory about a Talos release the embedded data lacks")
	fs.BoolVar(&opts.FixDriverPin, "fix-driver-pin", false, "move an exact nvidia.driver pin that the new Talos release breaks within its branch to that release's driver (rewrites that line of talops.yaml)")

	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}

	if err := oneOf("format", opts.Format, report.VersionFormats); err != nil {
		return nil, err
	}

	if (opts.Base == "") == (opts.Against == "") {
		return nil, &app.UsageError{Msg: "give one of --base REF or --against DIR"}
	}

	return opts, nil
}

func runVersions(ctx context.Context, d *Deps, args []string) error {
	opts, err := versionsFlags(d, args)
	if err != nil {
		return err
	}

	b, err := Versions(ctx, opts)
	if err != nil {
		return err
	}

	if err := d.View(func(w io.Writer) error { return report.WriteVersions(w, opts.Format, b) }); err != nil {
		return err
	}

	if finding.HasErrors(b.Findings) {
		return &FailedError{Msg: "the version bump has errors"}
	}

	return nil
}

// Versions explains the versions of the repository in Dir against another state of it.
func Versions(ctx context.Context, opts *VersionsOptions) (*rules.Bump, error) {
	return app.Versions(ctx, opts.Deps.App(), opts.VersionsOptions)
}
