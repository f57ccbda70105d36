package app

import (
	"context"

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
}

// Versions explains the versions of the repository in Dir against another state of it.
func Versions(ctx context.Context, d *Deps, opts VersionsOptions) (*rules.Bump, error) {
	head, err := Load(ctx, d, opts.Dir)
	if err != nil {
		return nil, err
	}

	base, err := loadOther(ctx, d, opts.Dir, opts.Base, opts.Against, head)
	if err != nil {
		return nil, err
	}

	headInput := rulesInput(ctx, d, head, opts.Offline)
	bump := rules.CompareVersions(rulesInput(ctx, d, base, opts.Offline), headInput)

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
