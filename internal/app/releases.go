package app

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"sync"
	"time"

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

// ReleaseCatalog returns the release data to judge a cluster against: the embedded data;
// for a release it lacks, the release as learnt before from the cluster's Image Factory
// (kept in the release cache), else as the factory lists it now (then kept), else, offline
// or when the factory does not answer, derived from its minor's data and the release facts.
// The lookup says which, so every report can say where its facts came from, and findings
// can say the data is missing rather than guess.
func ReleaseCatalog(ctx context.Context, d *Deps, c *cluster.Cluster, offline bool) (*catalog.Catalog, rules.ReleaseLookup) {
	cat := catalog.Embedded()

	tag, err := catalog.NormalizeTag(c.Spec.TalosVersion)
	if err != nil {
		return cat, rules.ReleaseLookup{} // versions.unknown-release says it
	}

	if _, ok := cat.Release(tag); ok {
		return cat, rules.ReleaseLookup{}
	}

	if d.Releases == nil {
		return lookUpRelease(ctx, d, c, cat, tag, offline)
	}

	// Both states of a plan or versions run usually name the same release: ask once.
	key := fmt.Sprintf("%s %s %v", c.ImageFactory(), tag, offline)

	d.Releases.mu.Lock()
	defer d.Releases.mu.Unlock()

	if a, ok := d.Releases.answers[key]; ok {
		return a.cat, a.lookup
	}

	updated, lookup := lookUpRelease(ctx, d, c, cat, tag, offline)

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

// lookUpRelease finds a release the embedded data lacks: in the cache, at the factory, or
// by derivation, in that order.
func lookUpRelease(ctx context.Context, d *Deps, c *cluster.Cluster, cat *catalog.Catalog, tag string, offline bool) (*catalog.Catalog, rules.ReleaseLookup) {
	factoryURL := c.ImageFactory()
	// The factory is named in reports and in the cache file: never with credentials a
	// private factory's URL may carry.
	shown := redactedURL(factoryURL)
	learnt := d.readLearnt()

	if lr, ok := learnt.Get(tag, shown); ok {
		r, contradictions := lr.Release.Against(catalog.EmbeddedFacts())

		return cat.With(r), rules.ReleaseLookup{Source: rules.SourceCache, Factory: shown, At: lr.At, Contradictions: contradictions}
	}

	var skipped string

	switch {
	case offline:
		skipped = "--offline"
	case d.ImageFactory == nil:
		skipped = "no Image Factory client"
	default:
		r, lookup, ok := fetchRelease(ctx, d, factoryURL, cat, tag)
		if ok {
			lookup.Factory = shown
			// The cache keeps what the factory said, as it said it; each use holds it to
			// the verified facts.
			d.keepLearnt(learnt, catalog.LearntRelease{Release: r, Factory: shown, At: lookup.At})
			r, lookup.Contradictions = r.Against(catalog.EmbeddedFacts())

			return cat.With(r), lookup
		}

		if lookup.Unlisted {
			return cat, lookup
		}

		skipped = lookup.Skipped
	}

	if r, ok := cat.Derive(tag, catalog.EmbeddedFacts()); ok {
		return cat.With(r), rules.ReleaseLookup{Source: rules.SourceDerived, Derived: r.Derived(), Skipped: skipped}
	}

	return cat, rules.ReleaseLookup{Skipped: skipped}
}

// fetchRelease asks the cluster's Image Factory for a release the embedded data lacks.
func fetchRelease(ctx context.Context, d *Deps, factoryURL string, cat *catalog.Catalog, tag string) (catalog.Release, rules.ReleaseLookup, bool) {
	client, err := d.ImageFactory(factoryURL)
	if err != nil {
		return catalog.Release{}, rules.ReleaseLookup{Skipped: err.Error()}, false
	}

	versions, err := client.Versions(ctx)
	if err != nil {
		return catalog.Release{}, rules.ReleaseLookup{Skipped: err.Error()}, false
	}

	if !slices.ContainsFunc(versions, func(v string) bool { n, err := catalog.NormalizeTag(v); return err == nil && n == tag }) {
		return catalog.Release{}, rules.ReleaseLookup{Unlisted: true}, false
	}

	updated, added, err := catalog.Update(ctx, cat, []string{tag}, FactoryFetcher(client))
	if err != nil {
		var rejected *catalog.RejectedListingError

		return catalog.Release{}, rules.ReleaseLookup{Skipped: err.Error(), Rejected: errors.As(err, &rejected)}, false
	}

	if len(added) == 0 {
		return catalog.Release{}, rules.ReleaseLookup{Skipped: "the data starts at " + cat.Releases()[0]}, false
	}

	r, _ := updated.Release(tag)

	return r, rules.ReleaseLookup{Fetched: true, Source: rules.SourceFactory, Factory: factoryURL, At: d.now()}, true
}

// redactedURL is a URL with any password replaced, as url.URL.Redacted does.
func redactedURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}

	return u.Redacted()
}

// learntFile is the file of learnt releases in the release cache.
const learntFile = "releases.json"

// readLearnt reads the releases learnt before. A cache that is missing, unreadable or
// damaged is an empty one: the cache only ever saves a question to the factory.
func (d *Deps) readLearnt() *catalog.Learnt {
	if d.ReleaseCache == "" || d.ReadFile == nil {
		return nil
	}

	data, err := d.ReadFile(filepath.Join(d.ReleaseCache, learntFile))
	if err != nil {
		return nil
	}

	l, err := catalog.LoadLearnt(data)
	if err != nil {
		d.note(fmt.Sprintf("the release cache %s is damaged and is set aside: %v", filepath.Join(d.ReleaseCache, learntFile), err))

		return nil
	}

	return l
}

// keepLearnt adds a learnt release to the cache. A cache that cannot be written costs the
// next run a question to the factory, nothing more: it is said, not failed.
func (d *Deps) keepLearnt(l *catalog.Learnt, lr catalog.LearntRelease) {
	if d.ReleaseCache == "" || d.WriteFile == nil {
		return
	}

	path := filepath.Join(d.ReleaseCache, learntFile)

	err := error(nil)
	if d.MkdirAll != nil {
		err = d.MkdirAll(d.ReleaseCache, 0o755)
	}

	if err == nil {
		err = d.WriteFile(path, l.With(lr).Encode(), 0o600)
	}

	if err != nil {
		d.note(fmt.Sprintf("could not keep Talos %s in the release cache: %v", lr.Release.Tag(), err))
	}
}

func (d *Deps) now() time.Time {
	if d.Now != nil {
		return d.Now().UTC()
	}

	return time.Time{}
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
