package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/gitrev"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/secrets"
)

// Repo is a loaded state of a repository with every node rendered.
type Repo struct {
	Cluster *cluster.Cluster
	Bundle  *secrets.Bundle
	Nodes   []render.Result
	// Schematics maps schematic names to their Image Factory IDs.
	Schematics map[string]string

	// patches holds the patch files this state loaded and the configs its nodes rendered
	// to, for another state loaded to compare with it (loadOther) to reuse; nil when
	// the state was loaded without (Load).
	patches *render.PatchCache
	// renderer renders its nodes: all of them for Nodes, or a chunk at a time for a
	// streamed plan, which loads the state without rendering it (Nodes nil).
	renderer *render.Renderer
}

// Load loads talops.yaml in dir, the secrets, and renders every node. Every secret value
// of the bundle is registered with the masker before anything is rendered.
func Load(ctx context.Context, d *Deps, dir string) (*Repo, error) {
	return openAndLoad(ctx, d, d.OpenDir, dir, dir, nil, nil, true)
}

// loadToCompare is Load for a state another one is loaded to compare with (a plan's
// desired state): it keeps the patch files it loaded and its nodes' configs, so that the
// other state, whose patch files are nearly all the same bytes, parses only those that
// differ and renders only the nodes made from something else.
func loadToCompare(ctx context.Context, d *Deps, dir string, renderNodes bool) (*Repo, error) {
	return openAndLoad(ctx, d, d.OpenDir, dir, dir, nil, render.NewPatchCache(), renderNodes)
}

// loadAt loads the state of the repository in dir at the git ref, without touching the work
// tree, its nodes rendered unless renderNodes is false. A state without a real secrets
// bundle is rendered with current's, so a throwaway bundle never shows as a change. The
// patch files current kept are not parsed again, and the files current holds as they are
// at ref are not read from git again.
func loadAt(ctx context.Context, d *Deps, dir, ref string, current *Repo, renderNodes bool) (*Repo, error) {
	// The files the pull request left as they were are the bytes current read already.
	files, err := gitrev.ReadReusing(ctx, d.Git, dir, ref, current.Cluster.File)
	if err != nil {
		return nil, err
	}

	open := func(string) (cluster.Files, func() error, error) {
		return cluster.MapFiles(files), func() error { return nil }, nil
	}

	// Its files are named as in the work tree, so findings of both states compare.
	r, err := openAndLoad(ctx, d, open, dir, dir, current, current.patches, renderNodes)
	if err != nil {
		return nil, fmt.Errorf("%s at %s: %w", dir, ref, err)
	}

	return r, nil
}

// loadOther loads the state to compare with: the same directory at a git ref (base,
// loadAt), or another directory (against), rendered with current's bundle when it has no
// real one and current's patch files; its nodes rendered unless renderNodes is false (a
// streamed plan renders them a chunk at a time).
func loadOther(ctx context.Context, d *Deps, dir, base, against string, current *Repo, renderNodes bool) (*Repo, error) {
	switch {
	case base != "" && against != "":
		return nil, &UsageError{Msg: "--base and --against cannot be used together"}
	case against != "":
		if !hasCluster(d, against) {
			return nil, errNoBase
		}

		return openAndLoad(ctx, d, d.OpenDir, against, against, current, current.patches, renderNodes)
	case base != "":
		r, err := loadAt(ctx, d, dir, base, current, renderNodes)
		if errors.Is(err, gitrev.ErrAbsent) {
			return nil, errNoBase
		}

		return r, err
	default:
		return nil, &UsageError{Msg: "one of --base REF or --against DIR is required"}
	}
}

// errNoBase says the state to compare with has no cluster: the directory is new (a new
// cluster in a pull request), so every node of the desired state is created.
var errNoBase = errors.New("the other state has no talops.yaml")

// hasCluster reports whether dir opens and holds a talops.yaml: a directory that does not
// open is an error of its own, reported by the load.
func hasCluster(d *Deps, dir string) bool {
	files, closeDir, err := d.OpenDir(dir)
	if err != nil {
		return true
	}
	defer closeDir() //nolint:errcheck // read-only

	_, err = files.ReadFile(cluster.FileName)

	return !errors.Is(err, fs.ErrNotExist)
}

// openAndLoad opens path and loads it as the repository directory named dir in messages,
// loading its patch files through patches (nil: each parsed, none kept), and renders its
// nodes unless renderNodes is false. A state loaded to compare with current (nil: none)
// takes current's talops.yaml model when the file is the same, and current's bundle when
// it has no real one.
func openAndLoad(ctx context.Context, d *Deps, open func(string) (cluster.Files, func() error, error), path, dir string, current *Repo, patches *render.PatchCache, renderNodes bool) (*Repo, error) {
	var (
		like     *cluster.Cluster
		fallback *secrets.Bundle
	)

	if current != nil {
		like, fallback = current.Cluster, current.Bundle
	}

	c, err := loadCluster(open, path, dir, like)
	if err != nil {
		return nil, err
	}

	r, err := prepareState(d, c, fallback, render.Options{Patches: patches})
	if err != nil {
		return nil, err
	}

	r.patches = patches

	if renderNodes {
		r.Nodes = r.renderer.Nodes(ctx, c.Spec.Nodes)
	}

	return r, nil
}

// loadState loads the secrets of a loaded cluster and renders every node.
func loadState(ctx context.Context, d *Deps, c *cluster.Cluster, fallback *secrets.Bundle) (*Repo, error) {
	return loadRendered(ctx, d, c, fallback, render.Options{})
}

// loadRendered is loadState rendering with opts (the installer images are the factory's).
func loadRendered(ctx context.Context, d *Deps, c *cluster.Cluster, fallback *secrets.Bundle, opts render.Options) (*Repo, error) {
	r, err := prepareState(d, c, fallback, opts)
	if err != nil {
		return nil, err
	}

	r.Nodes = r.renderer.Nodes(ctx, c.Spec.Nodes)

	return r, nil
}

// prepareState loads the secrets of a loaded cluster (every value registered with the masker)
// and readies the rendering of its nodes, with opts (the installer images are the
// factory's).
func prepareState(d *Deps, c *cluster.Cluster, fallback *secrets.Bundle, opts render.Options) (*Repo, error) {
	b, err := d.Secrets.Load(c)
	if err != nil {
		return nil, err
	}

	if b.Throwaway && fallback != nil {
		b = fallback
	}

	d.mask(b.Values()...)

	ids, err := render.SchematicIDs(c)
	if err != nil {
		return nil, err
	}

	opts.Installer = render.FactoryInstaller(ids)

	return &Repo{Cluster: c, Bundle: b, Schematics: ids, renderer: render.NewRenderer(c, b, opts)}, nil
}

// LoadCluster loads talops.yaml in dir and the files it names, without secrets or rendering.
func LoadCluster(d *Deps, dir string) (*cluster.Cluster, error) {
	return loadCluster(d.OpenDir, dir, dir, nil)
}

// loadCluster opens path and loads talops.yaml there as dir (cluster.LoadLike like).
func loadCluster(open func(string) (cluster.Files, func() error, error), path, dir string, like *cluster.Cluster) (*cluster.Cluster, error) {
	files, closeDir, err := open(path)
	if err != nil {
		return nil, fmt.Errorf("open repository directory %s: %w", dir, err)
	}
	defer closeDir() //nolint:errcheck // read-only

	return cluster.LoadLike(dir, files, like)
}
