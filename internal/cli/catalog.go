package cli

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/suggest"
)

// DefaultCatalogFile is the embedded release data, relative to the talops repository root.
const DefaultCatalogFile = "internal/catalog/data/extensions.json"

// DefaultFactsFile is the hand-kept release facts, whose checked date a refresh sets.
const DefaultFactsFile = "internal/catalog/data/releases.json"

// CatalogUpdateOptions are catalog update's inputs.
type CatalogUpdateOptions struct {
	Deps *Deps

	// CatalogUpdateOptions are the refresh's own options, declared once, in the application layer.
	app.CatalogUpdateOptions
}

const catalogUsage = "Usage: talops catalog update [--factory URL] [--file PATH] [--facts PATH]\n\nCommands:\n  update  refresh the release data from the Image Factory\n"

func catalogFlags(d *Deps, args []string) (*CatalogUpdateOptions, error) {
	switch {
	case len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help"):
		// Asked for: help is the output, not a complaint.
		if err := d.Out(catalogUsage); err != nil {
			return nil, err
		}

		return nil, flag.ErrHelp
	case len(args) == 0:
		d.Errf("%s", catalogUsage)

		return nil, &app.UsageError{Msg: "catalog needs a command: update"}
	case args[0] != "update":
		return nil, &app.UsageError{Msg: fmt.Sprintf("unknown catalog command %q%s (known: update)", args[0], suggest.DidYouMean(args[0], []string{"update"}))}
	}

	opts := &CatalogUpdateOptions{Deps: d}

	fs := newFlags(d, "catalog update", "catalog update [--factory URL] [--file PATH] [--facts PATH]")
	fs.StringVar(&opts.Factory, "factory", cluster.DefaultImageFactory, "Image Factory to read Talos releases and their extensions from")
	fs.StringVar(&opts.File, "file", DefaultCatalogFile, "release data file to refresh (run from the talops repository root)")
	fs.StringVar(&opts.Facts, "facts", DefaultFactsFile, "release facts file whose checked date is set to today (skipped when it does not exist)")

	if err := parseNoArgs(fs, args[1:]); err != nil {
		return nil, err
	}

	return opts, nil
}

func runCatalog(ctx context.Context, d *Deps, args []string) error {
	opts, err := catalogFlags(d, args)
	if err != nil {
		return err
	}

	return CatalogUpdate(ctx, opts)
}

// CatalogUpdate refreshes the release data file (see app.CatalogUpdate) and says what it added.
func CatalogUpdate(ctx context.Context, opts *CatalogUpdateOptions) error {
	d := opts.Deps

	res, err := app.CatalogUpdate(ctx, d.App(), opts.CatalogUpdateOptions)
	if err != nil {
		return err
	}

	msg := fmt.Sprintf("%s is up to date (%d releases)\n", opts.File, res.Total)

	if len(res.Added) > 0 {
		added := slices.Clone(res.Added)
		for i, tag := range added {
			if slices.Contains(res.PreReleases, tag) {
				added[i] += " (pre-release: kept until its release is out)"
			}
		}

		msg = fmt.Sprintf("added %s to %s (%d releases)\n", strings.Join(added, ", "), opts.File, res.Total)
	}

	if len(res.Skipped) > 0 {
		msg += fmt.Sprintf("skipped %s: pre-releases of a version that is released\n", strings.Join(res.Skipped, ", "))
	}

	if res.Checked != "" {
		msg += fmt.Sprintf("%s: checked %s\n", opts.Facts, res.Checked)
	}

	return d.Out(msg)
}
