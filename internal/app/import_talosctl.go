package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/talops/talops/internal/importer/talosctl"
	"github.com/talops/talops/internal/scaffold"
)

// talosctlNames are the files talosctl gen config writes, looked for in the source
// directory.
var talosctlNames = []string{"controlplane.yaml", "worker.yaml"}

// ImportTalosctl writes a talops repository from complete machine configs: those talosctl
// gen config wrote into opts.From and every file of opts.Configs (one config per node).
// The secrets they share become the bundle, each node's differences its patches.
func ImportTalosctl(ctx context.Context, d *Deps, opts ImportOptions) (*ImportResult, error) {
	var srcs []talosctl.Source

	for _, n := range talosctlNames {
		p := filepath.Join(opts.From, n)

		data, err := d.ReadFile(p)

		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return nil, fmt.Errorf("read %s: %w", p, err)
		}

		if err := BoundedYAML(p, data); err != nil {
			return nil, err
		}

		srcs = append(srcs, talosctl.Source{Name: p, Data: data})
	}

	for _, p := range opts.Configs {
		data, err := d.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}

		if err := BoundedYAML(p, data); err != nil {
			return nil, err
		}

		srcs = append(srcs, talosctl.Source{Name: p, Data: data})
	}

	if len(srcs) == 0 {
		return nil, &UsageError{Msg: fmt.Sprintf("%s holds neither controlplane.yaml nor worker.yaml, and no config file was named", opts.From)}
	}

	bundleName := scaffold.EncryptedBundle
	if opts.Plaintext {
		bundleName = scaffold.PlaintextBundle
	}

	res, err := talosctl.Import(talosctl.Input{Configs: srcs, Secrets: bundleName})
	if err != nil {
		return nil, err
	}

	plain, err := scaffold.BundleYAML(res.Bundle)
	if err != nil {
		return nil, err
	}

	src := &bundleSource{file: srcs[0].Name, plain: plain}

	return writeImport(ctx, d, opts, srcs[0].Name, res.Files, res.Findings, src, res.Cluster, res.TalosVersion)
}
