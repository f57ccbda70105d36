package app

import (
	"context"
	"slices"
	"sync"

	"github.com/talops/talops/internal/catalog"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/factory"
	"github.com/talops/talops/internal/rules"
)

// Releases remembers what the Image Factory said about releases: both states of a plan or
// versions run usually name the same release, and it is asked once.
type Releases struct {
	mu      sync.Mutex
	answers map[string]releaseAnswer
}

// ReleaseCatalog returns the release data to judge a cluster against: the embedded data, plus
// the cluster's release from its Image Factory when the data lacks it and the network is
// allowed. The lookup says what happened, so findings can say the data is missing rather
// than guess.
func ReleaseCatalog(ctx context.Context, d *Deps, c *cluster.Cluster, offline bool) (*catalog.Catalog, rules.ReleaseLookup) {
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

	if d.Releases == nil {
		return fetchRelease(ctx, d, c, cat, tag)
	}

	// Both states of a plan or versions run usually name the same release: ask once.
	key := c.ImageFactory() + " " + tag

	d.Releases.mu.Lock()
	defer d.Releases.mu.Unlock()

	if a, ok := d.Releases.answers[key]; ok {
		return a.cat, a.lookup
	}

	updated, lookup := fetchRelease(ctx, d, c, cat, tag)

	if d.Releases.answers == nil {
		d.Releases.answers = map[string]releaseAnswer{}
	}

	d.Releases.answers[key] = releaseAnswer{updated, lookup}

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

	updated, added, err := catalog.Update(ctx, cat, []string{tag}, FactoryFetcher(client))
	if err != nil {
		return cat, rules.ReleaseLookup{Skipped: err.Error()}
	}

	if len(added) == 0 {
		return cat, rules.ReleaseLookup{Skipped: "the data starts at " + cat.Releases()[0]}
	}

	return updated, rules.ReleaseLookup{Fetched: true}
}

// FactoryFetcher lists a release's official extensions with the factory client.
func FactoryFetcher(client *factory.Client) catalog.Fetcher {
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
