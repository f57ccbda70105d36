package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/talops/talops/internal/app"
)

// RenderOptions are render's inputs.
type RenderOptions struct {
	Deps *Deps

	Dir string
	Out string
	// Throwaway renders with a throwaway bundle when no real one is available.
	Throwaway bool
}

func renderFlags(d *Deps, args []string) (*RenderOptions, error) {
	opts := &RenderOptions{Deps: d}

	fs := newFlags(d, "render", "render [--dir D] --out O [--throwaway]")
	fs.StringVar(&opts.Dir, "dir", ".", "repository directory holding talops.yaml")
	fs.StringVar(&opts.Out, "out", "", "directory to write one <node>.yaml per node into (mode 0600)")
	fs.BoolVar(&opts.Throwaway, "throwaway", false, "render with a throwaway secrets bundle when the real one is not available (the configs cannot join a real cluster)")

	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}

	if opts.Out == "" {
		return nil, &UsageError{Msg: "--out is required"}
	}

	return opts, nil
}

func runRender(ctx context.Context, d *Deps, args []string) error {
	opts, err := renderFlags(d, args)
	if err != nil {
		return err
	}

	return Render(ctx, opts)
}

// Render writes the final machine config of every node (see app.Render). It prints only
// the files it wrote.
func Render(ctx context.Context, opts *RenderOptions) error {
	d := opts.Deps

	res, err := app.Render(ctx, d.App(), opts.Dir, opts.Throwaway)
	if err != nil {
		return err
	}

	if err := d.MkdirAll(opts.Out, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", opts.Out, err)
	}

	for _, c := range res.Configs {
		path := filepath.Join(opts.Out, c.Node+".yaml")

		if err := d.WriteFile(path, c.Data, 0o600); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}

		if err := d.Out("wrote " + path + "\n"); err != nil {
			return err
		}
	}

	if res.Throwaway {
		d.Errf("talops: note: rendered with a throwaway secrets bundle (%s): these configs cannot join a real cluster\n", res.Why)
	}

	return nil
}
