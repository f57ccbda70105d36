package cli

import (
	"context"
	"slices"

	"github.com/talops/talops/internal/catalog"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/factory"
	"github.com/talops/talops/internal/rules"
)

// releaseCatalog returns the release data to judge a cluster against: the embedded data, plus
// the cluster's release from its Image Factory when the data lacks it and the network is
// allowed. The lookup says what happened, so findings can say the data is missing rather
// than guess.
func releaseCatalog(ctx context.Context, d *Deps, c *cluster.Cluster, offline bool) (*catalog.Catalog, rules.ReleaseLookup) {
	cat := catalog.Embedded()

	tag, err := catalog.NormalizeTag(c.Spec.TalosVersion)
	if err != nil {
		return cat, rules.ReleaseLookup{} // versions.unknown-release says it
	}

	if _, ok := cat.Release(tag); ok {
		return cat, rules.ReleaseLookup{}
	}

	switch {
	case offline:
		return cat, rules.ReleaseLookup{Skipped: "--offline"}
	case d.ImageFactory == nil:
		return cat, rules.ReleaseLookup{Skipped: "no Image Factory client"}
	}

	// Both states of a plan or versions run usually name the same release: ask once.
	key := c.ImageFactory() + " " + tag
	if a, ok := d.releases[key]; ok {
		return a.cat, a.lookup
	}

	updated, lookup := fetchRelease(ctx, d, c, cat, tag)

	if d.releases == nil {
		d.releases = map[string]releaseAnswer{}
	}

	d.releases[key] = releaseAnswer{updated, lookup}

	return updated, lookup
}

// releaseAnswer is what the factory said about one release.
type releaseAnswer struct {
	cat    *catalog.Catalog
	lookup rules.ReleaseLookup
}

// fetchRelease asks the cluster's Image Factory for a release the embedded data lacks.
func fetchRelease(ctx context.Context, d *Deps, c *cluster.Cluster, cat *catalog.Catalog, tag string) (*catalog.Catalog, rules.ReleaseLookup) {
	client, err := d.ImageFactory(c.ImageFactory())
	if err != nil {
		return cat, rules.ReleaseLookup{Skipped: err.Error()}
	}

	versions, err := client.Versions(ctx)
	if err != nil {
		return cat, rules.ReleaseLookup{Skipped: err.Error()}
	}

	if !slices.ContainsFunc(versions, func(v string) bool { n, err := catalog.NormalizeTag(v); return err == nil && n == tag }) {
		return cat, rules.ReleaseLookup{Unlisted: true}
	}

	updated, added, err := catalog.Update(ctx, cat, []string{tag}, factoryFetcher(client))
	if err != nil {
		return cat, rules.ReleaseLookup{Skipped: err.Error()}
	}

	if len(added) == 0 {
		return cat, rules.ReleaseLookup{Skipped: "the data starts at " + cat.Releases()[0]}
	}

	return updated, rules.ReleaseLookup{Fetched: true}
}

// factoryFetcher lists a release's official extensions with the factory client.
func factoryFetcher(client *factory.Client) catalog.Fetcher {
	return func(ctx context.Context, version string) ([]catalog.OfficialExtension, error) {
		exts, err := client.OfficialExtensions(ctx, version)
		if err != nil {
			return nil, err
		}

		out := make([]catalog.OfficialExtension, len(exts))
		for i, e := range exts {
			out[i] = catalog.OfficialExtension(e)
		}

		return out, nil
	}
}
