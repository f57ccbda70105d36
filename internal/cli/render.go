package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/talops/talops/internal/app"
)

// RenderOptions are render's inputs.
type RenderOptions struct {
	Deps *Deps

	Dir string
	Out string
	// Throwaway renders with a throwaway bundle when no real one is available.
	Throwaway bool
	// Force writes the configs (they hold the cluster's secrets) even where Git would
	// pick them up.
	Force bool
}

func renderFlags(d *Deps, args []string) (*RenderOptions, error) {
	opts := &RenderOptions{Deps: d}

	fs := newFlags(d, "render", "render [--dir D] --out O [--throwaway] [--force]")
	fs.StringVar(&opts.Dir, "dir", ".", "repository directory holding talops.yaml")
	fs.StringVar(&opts.Out, "out", "", "directory to write one <node>.yaml per node into (mode 0600)")
	fs.BoolVar(&opts.Throwaway, "throwaway", false, "render with a throwaway secrets bundle when the real one is not available (the configs cannot join a real cluster)")
	fs.BoolVar(&opts.Force, "force", false, "write --out even inside a Git work tree that does not ignore it")

	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}

	if opts.Out == "" {
		return nil, &app.UsageError{Msg: "--out is required"}
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

// renderedList names, in an output directory, the files the last render wrote there: the
// next render removes those of nodes it no longer renders, and nothing else.
const renderedList = ".talops-rendered"

// Render writes the final machine config of every node (see app.Render) into a directory
// only its owner can read, and removes the configs a previous render wrote there for nodes
// no longer in talops.yaml. It prints only the files it wrote and removed.
func Render(ctx context.Context, opts *RenderOptions) error {
	d := opts.Deps

	// Even with --throwaway, the real bundle is used when it is available.
	if !opts.Force {
		if err := d.RefuseExposed(opts.Out, true, "--force"); err != nil {
			return err
		}
	}

	res, err := app.Render(ctx, d.App(), opts.Dir, opts.Throwaway)
	if err != nil {
		return err
	}

	if err := d.MkdirAll(opts.Out, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", opts.Out, err)
	}

	// MkdirAll leaves an existing directory's mode as it was.
	if d.Chmod != nil {
		if err := d.Chmod(opts.Out, 0o700); err != nil {
			return fmt.Errorf("make %s private: %w", opts.Out, err)
		}
	}

	previous := previousRender(d, opts.Out)

	names := make([]string, 0, len(res.Configs))

	for _, c := range res.Configs {
		name := c.Node + ".yaml"
		path := filepath.Join(opts.Out, name)

		if err := d.WriteFile(path, c.Data, 0o600); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}

		names = append(names, name)

		if err := d.Out("wrote " + path + "\n"); err != nil {
			return err
		}
	}

	for _, name := range previous {
		if slices.Contains(names, name) || d.Remove == nil {
			continue
		}

		path := filepath.Join(opts.Out, name)
		if err := d.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s (its node is no longer in talops.yaml): %w", path, err)
		}

		if err := d.Out("removed " + path + " (its node is no longer in talops.yaml)\n"); err != nil {
			return err
		}
	}

	list := filepath.Join(opts.Out, renderedList)
	if err := d.WriteFile(list, []byte(strings.Join(names, "\n")+"\n"), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", list, err)
	}

	if res.Throwaway {
		d.Errf("talops: note: rendered with a throwaway secrets bundle (%s): these configs cannot join a real cluster\n", res.Why)
	}

	return nil
}

// previousRender lists the node files the last render wrote into dir: only plain names of
// YAML files, so that an edited list can never name a file elsewhere.
func previousRender(d *Deps, dir string) []string {
	data, err := d.ReadFile(filepath.Join(dir, renderedList))
	if err != nil {
		return nil
	}

	var names []string

	for _, line := range strings.Split(string(data), "\n") {
		if line != "" && line == filepath.Base(line) && line != ".." && strings.HasSuffix(line, ".yaml") && !strings.ContainsAny(line, `/\`) {
			names = append(names, line)
		}
	}

	return names
}
