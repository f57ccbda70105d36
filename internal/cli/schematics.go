package cli

import (
	"context"
	"io"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/images"
	"github.com/talops/talops/internal/report"
)

// SchematicsOptions are schematics' inputs.
type SchematicsOptions struct {
	Deps *Deps

	// SchematicsOptions are schematics' own options, declared once, in the application layer.
	app.SchematicsOptions

	Format string
}

func schematicsFlags(d *Deps, args []string) (*SchematicsOptions, error) {
	opts := &SchematicsOptions{Deps: d}

	fs := newFlags(d, "schematics", "schematics [--dir D] [--format text|json|markdown] [--register]")
	fs.StringVar(&opts.Dir, "dir", ".", "repository directory holding talops.yaml")
	fs.StringVar(&opts.Format, "format", report.FormatText, "output format: text, json or markdown")
	fs.BoolVar(&opts.Register, "register", false, "post every schematic to the Image Factory and fail if it gives another ID")

	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}

	if err := oneOf("format", opts.Format, report.SchematicFormats); err != nil {
		return nil, err
	}

	return opts, nil
}

func runSchematics(ctx context.Context, d *Deps, args []string) error {
	opts, err := schematicsFlags(d, args)
	if err != nil {
		return err
	}

	s, err := Schematics(ctx, opts)
	if err != nil {
		return err
	}

	return d.View(func(w io.Writer) error { return report.WriteSchematics(w, opts.Format, s) })
}

// Schematics computes every schematic's ID and every node's images (see app.Schematics).
func Schematics(ctx context.Context, opts *SchematicsOptions) (*images.Schematics, error) {
	return app.Schematics(ctx, opts.Deps.App(), opts.SchematicsOptions)
}
