package app

import (
	"context"

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

	return rules.CompareVersions(rulesInput(ctx, d, base, opts.Offline), rulesInput(ctx, d, head, opts.Offline)), nil
}
