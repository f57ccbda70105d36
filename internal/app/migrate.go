package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/migrate"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/rules"
)

// MigrateOptions are the inputs of Migrate.
type MigrateOptions struct {
	Dir string
	// ConfigVersion is the config contract to move to ("v1.14").
	ConfigVersion string
	// Check computes and proves the migration but writes nothing.
	Check bool
}

// MigrateRefusal is one reason the migration is not written (migrate.Refusal).
type MigrateRefusal = migrate.Refusal

// MigrateResult is a migration, its proof and whether it was written.
type MigrateResult struct {
	// From is the config contract the repository renders with, Target the one it moves to.
	From, Target string
	Migration    *migrate.Result
	// Nodes is how many nodes were rendered before and after and compared.
	Nodes    int
	Refusals []MigrateRefusal
	// Unpinned says talops.yaml names no configVersion: the patches were taken to be in
	// the format of talosVersion's own contract, which they may not be.
	Unpinned bool
	// Written is true when the files were written.
	Written bool
}

// Migrate rewrites the repository in opts.Dir for another config contract (see package
// migrate), renders every node before and after, and writes the files only when no node's
// effective settings change and every migrated config validates, and not with Check.
func Migrate(ctx context.Context, d *Deps, opts MigrateOptions) (*MigrateResult, error) {
	files, closeDir, err := d.OpenDir(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("open repository directory %s: %w", opts.Dir, err)
	}
	defer closeDir() //nolint:errcheck // read-only

	before, err := loadFrom(ctx, d, opts.Dir, files, nil)
	if err != nil {
		return nil, err
	}

	for _, n := range before.Nodes {
		if n.Err != nil {
			return nil, fmt.Errorf("the repository does not render as it is, so there is nothing to compare a migration with (run talops validate): %w", n.Err)
		}
	}

	in, err := migrateInput(files, before.Cluster, opts.ConfigVersion)
	if err != nil {
		return nil, err
	}

	mig, err := rewrite(in)
	if err != nil {
		return nil, err
	}

	res := &MigrateResult{From: in.From, Target: in.Target, Migration: mig, Unpinned: before.Cluster.Spec.ConfigVersion == ""}
	if !mig.Changed() {
		return res, nil
	}

	rewritten := overlay{base: files, over: map[string][]byte{}}
	for _, f := range mig.Files {
		rewritten.over[f.Path] = f.Data
	}

	after, err := loadFrom(ctx, d, opts.Dir, rewritten, before)
	if err != nil {
		return nil, fmt.Errorf("the migrated repository does not load: %w", err)
	}

	res.Nodes = len(before.Nodes)
	res.Refusals = prove(before, after, mig)

	if len(res.Refusals) > 0 || opts.Check {
		return res, nil
	}

	if err := writeMigration(d, opts.Dir, mig); err != nil {
		return res, err
	}

	res.Written = true

	return res, nil
}

// migrateInput is what migrate.Rewrite needs from the repository as it is.
func migrateInput(files cluster.Files, c *cluster.Cluster, target string) (migrate.Input, error) {
	talops, err := files.ReadFile(cluster.FileName)
	if err != nil {
		return migrate.Input{}, fmt.Errorf("read %s: %w", c.Path(cluster.FileName), err)
	}

	return migrate.InputOf(c, talops, target), nil
}

// rewrite runs migrate.Rewrite and turns its usage errors into the app's, so that the
// doors give them the usage exit code.
func rewrite(in migrate.Input) (*migrate.Result, error) {
	mig, err := migrate.Rewrite(in)
	if err != nil {
		var target *migrate.TargetError
		if errors.As(err, &target) {
			return nil, &UsageError{Msg: target.Msg}
		}

		return nil, err
	}

	return mig, nil
}

// writeMigration writes the migrated files into dir. A file the migration adds must not be
// there yet (talops.yaml does not name it, but it may exist): that is checked before
// anything is written.
func writeMigration(d *Deps, dir string, mig *migrate.Result) error {
	for _, added := range mig.Added {
		path := filepath.Join(dir, filepath.FromSlash(added))
		if _, err := d.ReadFile(path); err == nil {
			return fmt.Errorf("%s: migrate adds this file to keep the old contract's defaults, and a file of that name exists: move it away", path)
		}
	}

	for _, f := range mig.Files {
		path := filepath.Join(dir, filepath.FromSlash(f.Path))

		if slices.Contains(mig.Added, f.Path) {
			if err := d.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return fmt.Errorf("write %s: %w", path, err)
			}
		}

		if err := writeKeepingMode(d, path, f.Data); err != nil {
			return err
		}
	}

	return nil
}

// writeKeepingMode writes a file of the repository over itself: it keeps its mode, only
// its contents move.
func writeKeepingMode(d *Deps, path string, data []byte) error {
	perm := os.FileMode(0o644)
	if d.Lstat != nil {
		if fi, err := d.Lstat(path); err == nil {
			perm = fi.Mode().Perm()
		}
	}

	if err := d.WriteFile(path, data, perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}

	return nil
}

// loadFrom loads and renders the repository served by files, with other's bundle when it
// has no real one.
func loadFrom(ctx context.Context, d *Deps, dir string, files cluster.Files, other *Repo) (*Repo, error) {
	c, err := cluster.Load(dir, files)
	if err != nil {
		return nil, err
	}

	if other != nil {
		return loadState(ctx, d, c, other.Bundle)
	}

	return loadState(ctx, d, c, nil)
}

// prove compares every node before and after, and validates every migrated config.
func prove(before, after *Repo, mig *migrate.Result) []MigrateRefusal {
	var out []MigrateRefusal

	for i, b := range before.Nodes {
		a := after.Nodes[i]
		nodeFile, nodeLine := after.Cluster.Path(cluster.FileName), after.Cluster.NodeLine(b.Name, "")

		if a.Err != nil {
			out = append(out, MigrateRefusal{Node: b.Name, File: nodeFile, Line: nodeLine, Msg: "the migrated config does not render: " + a.Err.Error()})

			continue
		}

		// A field left where it was is where machinery's refusal of it is fixed.
		at := func(path string) (string, int) {
			if file, line := leftAt(after.Cluster, a.Machine, mig, path); file != "" {
				return file, line
			}

			return nodeFile, nodeLine
		}

		mode := rules.ModeFor(after.Cluster.NodePlatform(a.Machine.Node))
		for _, f := range rules.ValidateConfig(a.Machine.Config, mode, false, at, b.Name) {
			if f.Severity == finding.Error {
				out = append(out, MigrateRefusal{Node: b.Name, Setting: f.Path, File: f.File, Line: f.Line, Msg: "the migrated config is invalid: " + f.Message})
			}
		}

		for _, setting := range migrate.CompareLayouts(bootNode(before.Cluster, b.Machine), bootNode(after.Cluster, a.Machine)).Differences {
			file, line := sourceOf(after.Cluster, a.Machine, mig, setting)
			if file == "" {
				file, line = nodeFile, nodeLine
			}

			out = append(out, MigrateRefusal{Node: b.Name, Setting: setting, File: file, Line: line, Msg: setting + " would change"})
		}
	}

	return out
}

// sourceOf finds the patch a setting moved from among a node's layers.
func sourceOf(c *cluster.Cluster, m *render.Machine, mig *migrate.Result, setting string) (string, int) {
	from := migrate.SourceOf(setting)
	if from == "" {
		return "", 0
	}

	for i := len(mig.Moved) - 1; i >= 0; i-- {
		mv := mig.Moved[i]
		if len(mv.From) < len(from) || mv.From[:len(from)] != from {
			continue
		}

		if slices.ContainsFunc(m.Layers, func(l render.Layer) bool { return l.File == c.Path(mv.File) }) {
			return c.Path(mv.File), mv.Line
		}
	}

	return "", 0
}

// leftAt finds, among a node's layers, the field left in place that a config path names.
func leftAt(c *cluster.Cluster, m *render.Machine, mig *migrate.Result, path string) (string, int) {
	// Machinery names a cluster field as .machine.cluster.network at times.
	if strings.HasPrefix(path, "machine.cluster.") {
		path = strings.TrimPrefix(path, "machine.")
	}

	for _, l := range mig.Left {
		if !strings.Contains(path, ".") || (!strings.HasPrefix(l.Path, path) && !strings.HasPrefix(path, l.Path)) {
			continue
		}

		if slices.ContainsFunc(m.Layers, func(x render.Layer) bool { return x.File == c.Path(l.File) }) {
			return c.Path(l.File), l.Line
		}
	}

	return "", 0
}

// overlay serves the rewritten files over the repository's own.
type overlay struct {
	base cluster.Files
	over map[string][]byte
}

// ReadFile implements cluster.Files.
func (o overlay) ReadFile(name string) ([]byte, error) {
	if data, ok := o.over[filepath.ToSlash(name)]; ok {
		return data, nil
	}

	return o.base.ReadFile(name)
}

// bootNode is a rendered node as the layouts' proof reads it: its config, and its
// schematic's kernel arguments when it installs from that schematic's installer (an
// install image of its own carries none of them).
func bootNode(c *cluster.Cluster, m *render.Machine) migrate.Node {
	n := migrate.Node{Config: m.Config}
	if m.Installer == "" || installImage(m.Config) != m.Installer {
		return n
	}

	n.SchematicKernelArgs = migrate.SchematicKernelArgs(c, m.Node)

	return n
}

// installImage is the installer image a config installs and upgrades with.
func installImage(c coreconfig.Provider) string {
	if u := c.UnattendedInstallConfig(); u != nil {
		return u.InstallerImage()
	}

	if c.Machine() != nil && c.Machine().Install() != nil {
		return c.Machine().Install().Image()
	}

	return ""
}
