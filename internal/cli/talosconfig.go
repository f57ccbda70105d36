package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/scaffold"
)

// TalosconfigOptions are talosconfig's inputs.
type TalosconfigOptions struct {
	Deps *Deps

	// TalosconfigOptions are talosconfig's own options, declared once, in the application layer.
	app.TalosconfigOptions

	Out string
	// Force writes the talosconfig even where Git would pick it up.
	Force bool
}

func talosconfigFlags(d *Deps, args []string) (*TalosconfigOptions, error) {
	opts := &TalosconfigOptions{Deps: d}

	fs := newFlags(d, "talosconfig", "talosconfig [--dir D] --out FILE [--role os:admin|os:operator|os:reader] [--ttl DURATION] [--force]")
	fs.StringVar(&opts.Dir, "dir", ".", "repository directory holding talops.yaml")
	fs.StringVar(&opts.Out, "out", "", "file to write the talosconfig to (mode 0600, never overwritten); - for stdout, outside GitHub Actions")
	fs.StringVar(&opts.Role, "role", scaffold.Roles[0], "role of the client certificate: os:admin, os:operator or os:reader")
	fs.DurationVar(&opts.TTL, "ttl", scaffold.DefaultTTL, "validity of the client certificate")
	fs.BoolVar(&opts.Force, "force", false, "write --out even inside a Git work tree that does not ignore it")

	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}

	if opts.Out == "" {
		return nil, &app.UsageError{Msg: "--out is required"}
	}

	if opts.Out == "-" && d.Getenv("GITHUB_ACTIONS") == "true" {
		return nil, &app.UsageError{Msg: "--out - is refused in GitHub Actions: a talosconfig on stdout would end up in the job log"}
	}

	if err := oneOf("role", opts.Role, scaffold.Roles); err != nil {
		return nil, err
	}

	if opts.TTL <= 0 {
		return nil, &app.UsageError{Msg: fmt.Sprintf("--ttl must be positive, got %s", opts.TTL)}
	}

	return opts, nil
}

func runTalosconfig(ctx context.Context, d *Deps, args []string) error {
	opts, err := talosconfigFlags(d, args)
	if err != nil {
		return err
	}

	return Talosconfig(ctx, opts)
}

// Talosconfig writes a talosconfig for the repository's cluster to opts.Out. It prints the
// path only.
func Talosconfig(ctx context.Context, opts *TalosconfigOptions) error {
	d := opts.Deps

	if opts.Out != "-" && !opts.Force {
		if err := d.RefuseExposed(opts.Out, false, "--force"); err != nil {
			return err
		}
	}

	data, err := app.Talosconfig(ctx, d.App(), opts.TalosconfigOptions)
	if err != nil {
		return err
	}

	if opts.Out == "-" {
		// Asked for on a terminal or a pipe: the file itself, unmasked.
		_, err := d.Stdout.Write(data)

		return err
	}

	if err := d.CreateFile(opts.Out, data, 0o600); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return &app.ExistsError{Path: opts.Out}
		}

		return fmt.Errorf("write %s: %w", opts.Out, err)
	}

	return d.Out(fmt.Sprintf("wrote %s (%s, valid for %s)\n", opts.Out, opts.Role, opts.TTL))
}
