package catalog

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// OfficialExtension is one entry of the Image Factory's GET /version/{v}/extensions/official.
type OfficialExtension struct {
	Name        string `json:"name"`   // "siderolabs/<ext>"
	Ref         string `json:"ref"`    // "ghcr.io/siderolabs/<ext>:<tag>"
	Digest      string `json:"digest"` // "sha256:…"
	Author      string `json:"author"`
	Description string `json:"description"`
}

// Fetcher returns the official extensions the Image Factory lists for a Talos release tag.
type Fetcher func(ctx context.Context, version string) ([]OfficialExtension, error)

// Update returns a new catalog with the releases among versions that c lacks, fetched one by
// one in version order. Versions that are malformed, already present, or older than c's oldest release are
// skipped (the factory lists releases long before the data starts, and published releases
// do not change). added lists the new tags in version order. c itself is left unchanged.
func Update(ctx context.Context, c *Catalog, versions []string, fetch Fetcher) (updated *Catalog, added []string, err error) {
	releases := maps.Clone(c.releases)

	var wanted []semver

	for _, s := range versions {
		v, err := parseTag(s)
		if err != nil {
			continue
		}

		if _, ok := releases[v.tag()]; ok {
			continue
		}

		if len(c.order) > 0 && v.compare(c.order[0]) < 0 {
			continue
		}

		releases[v.tag()] = Release{} // claims the tag so a repeated version is fetched once
		wanted = append(wanted, v)
	}

	slices.SortFunc(wanted, semver.compare)

	for _, v := range wanted {
		if err := ctx.Err(); err != nil {
			return nil, nil, fmt.Errorf("update catalog: %w", err)
		}

		list, err := fetch(ctx, v.tag())
		if err != nil {
			return nil, nil, fmt.Errorf("update catalog: fetch extensions of %s: %w", v.tag(), err)
		}

		r, err := ReleaseFromFactory(v.tag(), list)
		if err != nil {
			return nil, nil, fmt.Errorf("update catalog: %w", &RejectedListingError{Err: err})
		}

		releases[v.tag()] = r
	}

	updated = newCatalog(releases)

	for _, v := range updated.order {
		if _, old := c.releases[v.tag()]; !old {
			added = append(added, v.tag())
		}
	}

	return updated, added, nil
}

// ReleaseFromFactory builds a release from the factory's list of official extensions. Every
// entry must name an official image with a tag, its name must match its ref, and a name may
// appear once; an empty list is refused, since every release publishes extensions.
func ReleaseFromFactory(tag string, list []OfficialExtension) (Release, error) {
	if len(list) == 0 {
		return Release{}, fmt.Errorf("release %s: the factory lists no official extensions", tag)
	}

	exts := make(map[string]string, len(list))

	for _, e := range list {
		name, imageTag, ok := ParseExtensionRef(e.Ref)
		if !ok || imageTag == "" || !isImageRef(e.Ref) {
			return Release{}, fmt.Errorf("release %s: %q is not an official extension image reference", tag, e.Ref)
		}

		if listed, ok := NormalizeName(e.Name); !ok || listed != name {
			return Release{}, fmt.Errorf("release %s: extension %q has ref %q", tag, e.Name, e.Ref)
		}

		if prev, dup := exts[name]; dup && prev != imageTag {
			return Release{}, fmt.Errorf("release %s: extension %s listed with tags %s and %s", tag, name, prev, imageTag)
		}

		exts[name] = imageTag
	}

	return newRelease(tag, exts)
}

func isImageRef(s string) bool {
	return strings.HasPrefix(s, imagePrefix)
}

// RejectedListingError is an Image Factory listing that was received and refused: what it
// said is not data talops takes.
type RejectedListingError struct{ Err error }

func (e *RejectedListingError) Error() string { return e.Err.Error() }

func (e *RejectedListingError) Unwrap() error { return e.Err }
