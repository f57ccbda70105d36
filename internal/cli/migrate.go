package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/migrate"
	"github.com/talops/talops/internal/report"
)

// MigrateOptions are migrate's inputs: the use case's options, and the doors.
type MigrateOptions struct {
	Deps *Deps

	app.MigrateOptions
	// Format is the output's format: text (with --check the migration in one screen, else
	// every move) or json (the migration in one screen, as data).
	Format string
}

func migrateFlags(d *Deps, args []string) (*MigrateOptions, error) {
	opts := &MigrateOptions{Deps: d}

	fs := newFlags(d, "migrate", "migrate --config-version vX.Y [--dir D] [--check] [--format text|json]")
	fs.StringVar(&opts.Dir, "dir", ".", "repository directory holding talops.yaml")
	fs.StringVar(&opts.ConfigVersion, "config-version", "", "config contract to move the patches to (v1.14): its typed documents replace the v1alpha1 fields")
	fs.BoolVar(&opts.Check, "check", false, "print what would move and what would stay, and write nothing: exit 1 when anything would change")
	fs.StringVar(&opts.Format, "format", report.FormatText, "output format: text or json")

	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}

	if err := oneOf("format", opts.Format, report.MigrateFormats); err != nil {
		return nil, err
	}

	if opts.ConfigVersion == "" {
		return nil, &app.UsageError{Msg: "--config-version is required (e.g. --config-version v1.14)"}
	}

	return opts, nil
}

func runMigrate(ctx context.Context, d *Deps, args []string) error {
	opts, err := migrateFlags(d, args)
	if err != nil {
		return err
	}

	return Migrate(ctx, opts)
}

// Migrate moves the repository's patches to the documents of a newer config contract (see
// app.Migrate), printing every move, what stays, and why it refuses when it does.
func Migrate(ctx context.Context, opts *MigrateOptions) error {
	d := opts.Deps

	res, err := app.Migrate(ctx, d.App(), opts.MigrateOptions)
	if err != nil {
		return err
	}

	if opts.Check || opts.Format != report.FormatText {
		if err := d.View(func(w io.Writer) error { return report.WriteMigrate(w, opts.Format, migrateView(res, opts.Dir)) }); err != nil {
			return err
		}
	} else if err := d.Out(migrateText(res, opts.Dir)); err != nil {
		return err
	}

	switch {
	case len(res.Refusals) > 0:
		return &FailedError{Msg: "migrate refused: a node's effective settings would change"}
	case opts.Check && res.Migration.Changed():
		return &FailedError{Msg: "migrate --check: files would change"}
	}

	return nil
}

// migrateView is the migration in one screen.
func migrateView(res *app.MigrateResult, dir string) report.MigrateView {
	return report.MigrateView{
		Dir: dir, From: res.From, Target: res.Target, Summary: migrate.Summarize(res.Migration),
		Nodes: res.Nodes, Refusals: res.Refusals, Unpinned: res.Unpinned, Written: res.Written,
	}
}

// migrateText is what a migration that writes prints: every move, what stays, the
// refusals, and the outcome.
func migrateText(res *app.MigrateResult, dir string) string {
	var b strings.Builder

	m := res.Migration

	for _, mv := range m.Moved {
		verb := "moved"
		if mv.Kept {
			verb = "kept"
		}

		fmt.Fprintf(&b, "%s: %s %s → %s\n", place(dir, mv.File, mv.Line), verb, mv.From, mv.To)
	}

	for _, l := range m.Left {
		fmt.Fprintf(&b, "%s: left %s: %s\n", place(dir, l.File, l.Line), l.Path, l.Reason)
	}

	for _, r := range res.Refusals {
		fmt.Fprintf(&b, "%s: refused [%s] %s\n", place("", r.File, r.Line), r.Node, r.Msg)
	}

	var files []string
	for _, f := range m.Files {
		files = append(files, place(dir, f.Path, 0))
	}

	switch {
	case !m.Changed():
		b.WriteString("Nothing to migrate: the repository is in the layout of that contract.\n")
	case len(res.Refusals) > 0:
		fmt.Fprintf(&b, "Not written: %d effective differences or invalid configs across %d nodes; the files are as they were.\n", len(res.Refusals), res.Nodes)

		if res.Unpinned {
			b.WriteString("talops.yaml pins no configVersion, so the patches were read in the format of talosVersion's own release; if they were written for an older one, add configVersion with it (e.g. configVersion: v1.13), check it with talops validate, then migrate.\n")
		}
	default:
		fmt.Fprintf(&b, "Rewrote %s; all %d nodes keep their effective settings.\n", strings.Join(files, ", "), res.Nodes)
	}

	return b.String()
}

// place writes file:line as findings do, the file under dir as talops.yaml names it
// (without the line when it is not known).
func place(dir, file string, line int) string {
	if dir != "" && dir != "." {
		file = filepath.ToSlash(filepath.Join(dir, file))
	}

	if line == 0 {
		return file
	}

	return fmt.Sprintf("%s:%d", file, line)
}
