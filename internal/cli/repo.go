package cli

import (
	"context"
	"fmt"

	"github.com/talops/talops/internal/cluster"
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
	files, closeDir, err := d.OpenDir(dir)
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

	d.Mask(b.Values()...)

	ids, err := render.SchematicIDs(c)
	if err != nil {
		return nil, err
	}

	nodes := render.All(ctx, c, b, render.Options{Installer: render.FactoryInstaller(ids)})

	return &repo{Cluster: c, Bundle: b, Nodes: nodes, Schematics: ids}, nil
}
