package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/importer/talhelper"
	"github.com/talops/talops/internal/scaffold"
)

// ImportOptions are what an import reads and where it writes.
type ImportOptions struct {
	// From is the source's config file or the directory holding it; Out the new
	// repository's directory.
	From, Out string
	// Recipients are age X25519 recipients of the new bundle; without them, a SOPS source's
	// own recipients are kept.
	Recipients []string
	// Plaintext writes the bundle in clear (scaffold.PlaintextBundle).
	Plaintext bool
	// Configs are more complete machine configs, one per node (talosctl only).
	Configs []string
	// Schematics are schematic files for the IDs of talosImageURL installers (talhelper
	// only), beside the ones found in the talconfig's directory.
	Schematics []string
	// Offline never asks the Image Factory for the schematic of an installer ID no file
	// has (talhelper and topf).
	Offline bool
	// TalosVersion is the Talos release the nodes run, for a source that names none
	// (talhelper and topf); without it, the release the nodes report when Talosconfig is
	// given.
	TalosVersion string
	// Talosconfig, when set, reaches the running nodes: the import must render what they
	// run (the first plan after it is empty), or it writes nothing.
	Talosconfig string
	// AllowDifferences writes an import whose render differs from the running nodes, each
	// difference a finding.
	AllowDifferences bool
}

// ImportResult says what an import wrote and what it could not carry over.
type ImportResult struct {
	// Source is the config file read; Written the paths written.
	Source  string
	Written []string
	// Findings are the fields not imported or imported otherwise, at their place.
	Findings []finding.Finding
	// Bundle is the new bundle's path; Encrypted says whether it is, Recipients to how
	// many; Generated that the source had no secrets and a new bundle was made.
	Bundle               string
	Encrypted, Generated bool
	Recipients           int
	Cluster              string
}

// talconfigNames are the files talhelper reads, in the order it looks for them.
var (
	talconfigNames = []string{"talconfig.yaml", "talconfig.yml"}
	talenvNames    = []string{"talenv.yaml", "talenv.sops.yaml", "talenv.yml", "talenv.sops.yml"}
	talsecretNames = []string{"talsecret.yaml", "talsecret.sops.yaml", "talsecret.yml", "talsecret.sops.yml"}
)

// ImportTalhelper writes a talops repository from a talhelper one: talops.yaml, the
// patches and schematics, and the secrets bundle re-encrypted (or generated, when the
// source has none). It refuses to write over any file.
func ImportTalhelper(ctx context.Context, d *Deps, opts ImportOptions) (*ImportResult, error) {
	file, data, err := readSource(d, opts.From, talconfigNames)
	if err != nil {
		return nil, err
	}

	dir := filepath.Dir(file)

	env, err := talhelperEnv(d, dir)
	if err != nil {
		return nil, err
	}

	src, err := readBundleSource(d, dir, talsecretNames)
	if err != nil {
		return nil, err
	}

	bundleName := scaffold.EncryptedBundle
	if opts.Plaintext {
		bundleName = scaffold.PlaintextBundle
	}

	schematics, err := readSchematicFiles(d, opts.Schematics)
	if err != nil {
		return nil, err
	}

	tree, err := openSourceTree(d, dir)
	if err != nil {
		return nil, err
	}

	talosVersion, fromNodes, err := importTalosVersion(ctx, d, opts)
	if err != nil {
		return nil, err
	}

	in := talhelper.Input{
		File: file, Data: data, Lookup: env, Secrets: bundleName, HasAESCBC: src.hasAESCBC(), Schematics: schematics,
		TalosVersion: talosVersion, TalosFromNodes: fromNodes, Recover: schematicRecovery(ctx, d, opts.Offline),
		ReadPatch: tree.read, Within: tree.within,
	}

	if d.ListFiles != nil {
		in.ListDir = func() ([]string, error) { return d.ListFiles(dir) }
	}

	res, err := talhelper.Import(in)
	if err != nil {
		return nil, err
	}

	return writeImport(ctx, d, opts, file, res.Files, res.Findings, src, res.Cluster, res.TalosVersion)
}

// readSchematicFiles reads the schematic files named on the command line.
func readSchematicFiles(d *Deps, paths []string) ([]talhelper.SchematicFile, error) {
	var out []talhelper.SchematicFile

	for _, p := range paths {
		data, err := d.ReadFile(p)
		if err != nil {
			return nil, &UsageError{Msg: fmt.Sprintf("--schematic %s: not readable: %v", p, err)}
		}

		if err := BoundedYAML(p, data); err != nil {
			return nil, err
		}

		out = append(out, talhelper.SchematicFile{File: p, Data: data})
	}

	return out, nil
}

// readSource reads the source's config: from itself, or the first of names in it.
func readSource(d *Deps, from string, names []string) (string, []byte, error) {
	if from == "" {
		return "", nil, &UsageError{Msg: "the source (--from) is required"}
	}

	if data, err := d.ReadFile(from); err == nil {
		return from, data, BoundedYAML(from, data)
	}

	for _, n := range names {
		p := filepath.Join(from, n)
		if data, err := d.ReadFile(p); err == nil {
			return p, data, BoundedYAML(p, data)
		}
	}

	return "", nil, &UsageError{Msg: fmt.Sprintf("%s: neither a readable file nor a directory holding %s", from, names[0])}
}

// writeImport writes the imported files and the bundle into opts.Out, refusing to write
// over anything; the bundle goes first, so no talops.yaml names a missing one.
func writeImport(ctx context.Context, d *Deps, opts ImportOptions, source string, files []scaffold.File, findings []finding.Finding, src *bundleSource, name, talosVersion string) (*ImportResult, error) {
	recipients := opts.Recipients
	if len(recipients) == 0 && !opts.Plaintext {
		recipients = src.recipients
	}

	parsed, err := ParseRecipients(recipients)
	if err != nil {
		return nil, err
	}

	if !opts.Plaintext && len(parsed) == 0 {
		return nil, &UsageError{Msg: "the source's secrets are not SOPS/age-encrypted: give an age recipient for the new bundle (or ask for a plaintext bundle)"}
	}

	files, moved, err := importLayout(files)
	if err != nil {
		return nil, err
	}

	findings = append(findings, moved...)
	finding.Sort(findings)

	spec := scaffold.Spec{Name: name, TalosVersion: talosVersion, Recipients: recipients, Plaintext: opts.Plaintext}

	bundle, plain, generated, err := importBundle(d, spec, src, parsed)
	if err != nil {
		return nil, err
	}

	all := append([]scaffold.File{{Path: spec.BundleFile(), Data: bundle}}, files...)
	all = append(all, scaffold.Support(spec)...)

	for _, f := range all {
		if err := refuseExisting(d, filepath.Join(opts.Out, filepath.FromSlash(f.Path))); err != nil {
			return nil, err
		}
	}

	differences, err := checkImport(ctx, d, opts, spec.BundleFile(), plain, files)
	if err != nil {
		return nil, err
	}

	findings = append(findings, differences...)
	finding.Sort(findings)

	res := &ImportResult{
		Source: source, Findings: findings, Bundle: filepath.Join(opts.Out, spec.BundleFile()),
		Encrypted: !opts.Plaintext, Generated: generated, Recipients: len(parsed), Cluster: name,
	}

	res.Written, err = writeFiles(d, opts.Out, all)
	if err != nil {
		return nil, err
	}

	return res, nil
}

// writeFiles writes new files into out (the plaintext bundle readable by its owner only)
// and returns their paths; an existing one is an *ExistsError.
func writeFiles(d *Deps, out string, all []scaffold.File) ([]string, error) {
	var written []string

	for _, f := range all {
		path := filepath.Join(out, filepath.FromSlash(f.Path))

		if err := d.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
		}

		perm := fs.FileMode(0o644)
		if f.Path == scaffold.PlaintextBundle {
			perm = 0o600
		}

		if err := d.CreateFile(path, f.Data, perm); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return nil, &ExistsError{Path: path}
			}

			return nil, fmt.Errorf("write %s: %w", path, err)
		}

		written = append(written, path)
	}

	return written, nil
}
