package cli

import (
	"context"
	"fmt"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/gitrev"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/secrets"
)

// repo is a loaded repository with every node rendered.
type repo struct {
	Cluster *cluster.Cluster
	Bundle  *secrets.Bundle
	Nodes   []render.Result
	// Schematics maps schematic names to their Image Factory IDs.
	Schematics map[string]string
}

// loadRepo loads talops.yaml, the secrets and renders every node. Every secret value
// of the bundle is registered with the masker before anything is rendered.
func loadRepo(ctx context.Context, d *Deps, dir string) (*repo, error) {
	return openAndLoad(ctx, d, d.OpenDir, dir, dir, nil)
}

// loadOther loads the state to compare with: the same directory at a git ref (base), or
// another directory (against). When that state has no real secrets bundle it is rendered
// with the bundle of the current state, so a throwaway bundle never shows as a change.
func loadOther(ctx context.Context, d *Deps, dir, base, against string, current *repo) (*repo, error) {
	switch {
	case base != "" && against != "":
		return nil, &UsageError{Msg: "--base and --against cannot be used together"}
	case against != "":
		return openAndLoad(ctx, d, d.OpenDir, against, against, current.Bundle)
	case base != "":
		exported, cleanup, err := gitrev.Export(ctx, d.Git, dir, base, d.TempDir)
		if err != nil {
			return nil, err
		}
		defer cleanup()

		// An exported state is always on disk, whatever the caller's OpenDir serves; its
		// files are named as in the work tree, so findings of both states compare.
		r, err := openAndLoad(ctx, d, OSDeps().OpenDir, exported, dir, current.Bundle)
		if err != nil {
			return nil, fmt.Errorf("%s at %s: %w", dir, base, err)
		}

		return r, nil
	default:
		return nil, &UsageError{Msg: "one of --base REF or --against DIR is required"}
	}
}

// openAndLoad opens path and loads it as the repository directory named dir in messages.
func openAndLoad(ctx context.Context, d *Deps, open func(string) (cluster.Files, func() error, error), path, dir string, fallback *secrets.Bundle) (*repo, error) {
	files, closeDir, err := open(path)
	if err != nil {
		return nil, fmt.Errorf("open repository directory %s: %w", dir, err)
	}
	defer closeDir() //nolint:errcheck // read-only

	c, err := cluster.Load(dir, files)
	if err != nil {
		return nil, err
	}

	b, err := d.Secrets().Load(c)
	if err != nil {
		return nil, err
	}

	if b.Throwaway && fallback != nil {
		b = fallback
	}

	d.Mask(b.Values()...)

	ids, err := render.SchematicIDs(c)
	if err != nil {
		return nil, err
	}

	nodes := render.All(ctx, c, b, render.Options{Installer: render.FactoryInstaller(ids)})

	return &repo{Cluster: c, Bundle: b, Nodes: nodes, Schematics: ids}, nil
}
