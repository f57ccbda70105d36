package app

import (
	"context"
	"path/filepath"

	"github.com/talops/talops/internal/importer/topf"
	"github.com/talops/talops/internal/scaffold"
)

// topfNames is the file topf reads by default (its --topfconfig).
var topfNames = []string{"topf.yaml"}

// ImportTopf writes a talops repository from a topf one: talops.yaml, the patches (its
// templates rendered per node), the schematics of its @file schematicIds, and the
// secrets bundle of secretsPath re-encrypted (or generated, when there is none). It
// refuses to write over any file.
func ImportTopf(ctx context.Context, d *Deps, opts ImportOptions) (*ImportResult, error) {
	file, data, err := readSource(d, opts.From, topfNames)
	if err != nil {
		return nil, err
	}

	if d.ListFiles == nil {
		return nil, &UsageError{Msg: "import topf: this build lists no directories"}
	}

	dir := filepath.Dir(file)

	secretsPath := topf.SecretsPath(data)
	if filepath.IsAbs(secretsPath) {
		if rel, err := filepath.Rel(dir, secretsPath); err == nil {
			secretsPath = rel
		}
	}

	src, err := readBundleSource(d, dir, []string{secretsPath})
	if err != nil {
		return nil, err
	}

	bundleName := scaffold.EncryptedBundle
	if opts.Plaintext {
		bundleName = scaffold.PlaintextBundle
	}

	// topf's files stay in its directory (the importer refuses a path out of it); a
	// symbolic link there is not followed out of the repository.
	tree, err := openSourceTree(d, dir)
	if err != nil {
		return nil, err
	}

	talosVersion, fromNodes, err := importTalosVersion(ctx, d, opts)
	if err != nil {
		return nil, err
	}

	res, err := topf.Import(topf.Input{
		File: file, Data: data, Dir: filepath.ToSlash(dir), Secrets: bundleName, Recover: schematicRecovery(ctx, d, opts.Offline),
		TalosVersion: talosVersion, TalosFromNodes: fromNodes,
		Lookup: func(name string) (string, bool) {
			v := d.Getenv(name)

			return v, v != ""
		},
		ReadFile: tree.read,
		ListFiles: func(rel string) ([]string, error) {
			files, err := d.ListFiles(filepath.Join(dir, filepath.FromSlash(rel)))
			if err != nil {
				return nil, err
			}

			for i, f := range files {
				files[i] = filepath.ToSlash(filepath.Join(filepath.FromSlash(rel), filepath.FromSlash(f)))
			}

			return files, nil
		},
	})
	if err != nil {
		return nil, err
	}

	return writeImport(ctx, d, opts, file, res.Files, res.Findings, src, res.Cluster, res.TalosVersion)
}
