package app

import (
	"context"
	"errors"

	"github.com/talops/talops/internal/render"
)

// Config is one node's final machine config, encoded.
type Config struct {
	Node string
	Data []byte
}

// RenderResult is every node's final machine config.
type RenderResult struct {
	Configs []Config
	// Throwaway is true when the configs were rendered with a throwaway bundle (they
	// cannot join a real cluster); Why says why.
	Throwaway bool
	Why       string
}

// Render renders the final machine config of every node of the repository in dir; a node
// that does not render fails the whole, every such node named. Configs are only rendered
// with a throwaway bundle when throwaway says so: whoever applied them would get a cluster
// nobody holds the secrets of.
func Render(ctx context.Context, d *Deps, dir string, throwaway bool) (*RenderResult, error) {
	c, err := LoadCluster(d, dir)
	if err != nil {
		return nil, err
	}

	// Render needs only the bytes: each worker encodes its node and lets go of the rest.
	r, err := loadRendered(ctx, d, c, nil, render.Options{EncodeOnly: true})
	if err != nil {
		return nil, err
	}

	if r.Bundle.Throwaway && !throwaway {
		return nil, &UsageError{Msg: "render needs the cluster's secrets bundle, and only a throwaway one is available (" + r.Bundle.Why + "): configs rendered with it cannot join the cluster; give the key, or pass --throwaway to render them anyway"}
	}

	var errs []error

	for _, n := range r.Nodes {
		if n.Err != nil {
			errs = append(errs, n.Err)
		}
	}

	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}

	out := &RenderResult{Configs: make([]Config, 0, len(r.Nodes))}

	for _, n := range r.Nodes {
		data, err := n.Machine.Bytes()
		if err != nil {
			return nil, err
		}

		out.Configs = append(out.Configs, Config{Node: n.Name, Data: data})
	}

	out.Throwaway, out.Why = r.Bundle.Throwaway, r.Bundle.Why

	return out, nil
}
