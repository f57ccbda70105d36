package app

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/rules"
)

// VersionsOptions name the two states versions compares: the repository in Dir (the new
// state) and the same directory at Base, or the directory Against.
type VersionsOptions struct {
	Dir     string
	Base    string
	Against string
	// Offline forbids asking the Image Factory about releases the embedded data lacks.
	Offline bool
	// FixDriverPin moves an exact nvidia.driver pin that the new state's Talos release
	// breaks within its branch to that release's driver, in Dir's talops.yaml
	// (rules.PinMove); a branch pin or a branch change is left to the finding.
	FixDriverPin bool
}

// Versions explains the versions of the repository in Dir against another state of it.
// With FixDriverPin it first moves the pin, and explains the repository as it is after.
func Versions(ctx context.Context, d *Deps, opts VersionsOptions) (*rules.Bump, error) {
	head, err := Load(ctx, d, opts.Dir)
	if err != nil {
		return nil, err
	}

	base, err := loadOther(ctx, d, opts.Dir, opts.Base, opts.Against, head, true)
	if err != nil {
		return nil, err
	}

	baseInput := rulesInput(ctx, d, base, opts.Offline)

	bump, err := compareVersions(ctx, d, baseInput, head, opts.Offline)
	if err != nil || !opts.FixDriverPin {
		return bump, err
	}

	move, ok := rules.PinMove(bump)
	if !ok {
		return bump, nil
	}

	if err := moveDriverPin(d, opts.Dir, move); err != nil {
		return nil, err
	}

	if head, err = Load(ctx, d, opts.Dir); err != nil {
		return nil, err
	}

	if bump, err = compareVersions(ctx, d, baseInput, head, opts.Offline); err != nil {
		return nil, err
	}

	bump.PinMoved = &move

	return bump, nil
}

// compareVersions is the bump from base to head, with the head state's own errors.
func compareVersions(ctx context.Context, d *Deps, base *rules.Input, head *Repo, offline bool) (*rules.Bump, error) {
	headInput := rulesInput(ctx, d, head, offline)
	bump := rules.CompareVersions(base, headInput)

	// The new state's own errors too (an invalid config after the bump): plan is blocked by
	// them, so versions must not say the bump is fine.
	checked, err := rules.Check(ctx, headInput)
	if err != nil {
		return nil, err
	}

	var errs []finding.Finding

	for _, f := range checked {
		if f.Severity == finding.Error {
			errs = append(errs, f)
		}
	}

	bump.Findings = merge(errs, bump.Findings)

	return bump, nil
}

// moveDriverPin rewrites the nvidia.driver line of dir's talops.yaml, and nothing else.
func moveDriverPin(d *Deps, dir string, move rules.Change) error {
	files, closeDir, err := d.OpenDir(dir)
	if err != nil {
		return err
	}
	defer func() { _ = closeDir() }()

	data, err := files.ReadFile(cluster.FileName)
	if err != nil {
		return err
	}

	moved, err := cluster.SetValue(data, "nvidia.driver", move.From, move.To)
	if err != nil {
		return fmt.Errorf("move the nvidia.driver pin: %w", err)
	}

	return writeKeepingMode(d, filepath.Join(dir, cluster.FileName), moved)
}
