package catalog

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"
)

//go:embed data/extensions.json
var embeddedJSON []byte

// embedded parses the data once, on first use; the value is shared and never modified.
var embedded = sync.OnceValue(func() *Catalog {
	c, err := loadTrusted(embeddedJSON)
	if err != nil {
		// The file is part of the source tree and a test loads it: this cannot happen in a
		// binary whose tests passed.
		panic(fmt.Sprintf("catalog: embedded data/extensions.json: %v", err))
	}

	return c
})

// Catalog maps Talos release tags to the official extensions published for them. A Catalog
// never changes once built, so it is safe for concurrent use.
type Catalog struct {
	releases map[string]Release
	order    []semver // ascending
}

// Release is one Talos release's set of official extensions and their image tags.
type Release struct {
	tag        string
	extensions map[string]string // bare name → image tag; "" when unknown (derived releases)
	// derived says how a release the data lacks was derived (see Derive); "" for a release
	// of the data.
	derived string
}

// fileShape is the JSON layout: {"talos": {"<tag>": {"<extension>": "<image tag>"}}}.
type fileShape struct {
	Talos map[string]map[string]string `json:"talos"`
}

// Embedded returns the catalog compiled into the binary.
func Embedded() *Catalog {
	return embedded()
}

// EmbeddedJSON returns a copy of the embedded data file, for a refresh to start from or to
// compare against.
func EmbeddedJSON() []byte {
	return bytes.Clone(embeddedJSON)
}

// Load parses a catalog in the embedded file's JSON shape. Release keys must be Talos tags
// ("v1.13.9"), extension names bare official names, tags valid image tags.
func Load(data []byte) (*Catalog, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()

	var f fileShape
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("load catalog: %w", err)
	}

	if dec.More() {
		return nil, fmt.Errorf("load catalog: trailing data after the JSON object")
	}

	if f.Talos == nil {
		return nil, fmt.Errorf(`load catalog: no "talos" object`)
	}

	releases := make(map[string]Release, len(f.Talos))

	for key, exts := range f.Talos {
		r, err := newRelease(key, exts)
		if err != nil {
			return nil, fmt.Errorf("load catalog: %w", err)
		}

		releases[r.tag] = r
	}

	return newCatalog(releases), nil
}

// loadTrusted builds the catalog of data known to be well formed: the embedded file, which
// Load checks in a test (TestEncode_ReproducesTheEmbeddedFileByteForByte). Its entries are not
// checked again each time the program starts, nor read through a streaming decoder: that
// was half of loading it (15 → 7.5 ms of cpu a command, in a cpu profile of validate).
func loadTrusted(data []byte) (*Catalog, error) {
	var f fileShape
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("load catalog: %w", err)
	}

	releases := make(map[string]Release, len(f.Talos))
	for key, exts := range f.Talos {
		releases[key] = Release{tag: key, extensions: exts}
	}

	return newCatalog(releases), nil
}

func newRelease(key string, exts map[string]string) (Release, error) {
	v, err := parseTag(key)
	if err != nil {
		return Release{}, err
	}

	if v.tag() != key {
		return Release{}, fmt.Errorf("release %q: key must be the tag %q", key, v.tag())
	}

	for name, tag := range exts {
		if !validName(name) {
			return Release{}, fmt.Errorf("release %s: %q is not a bare extension name", key, name)
		}

		if !validTag(tag) {
			return Release{}, fmt.Errorf("release %s: extension %s: %q is not an image tag", key, name, tag)
		}
	}

	return Release{tag: key, extensions: maps.Clone(exts)}, nil
}

func newCatalog(releases map[string]Release) *Catalog {
	order := make([]semver, 0, len(releases))

	for tag := range releases {
		v, _ := parseTag(tag) // every key was checked on the way in
		order = append(order, v)
	}

	slices.SortFunc(order, semver.compare)

	return &Catalog{releases: releases, order: order}
}

// Release returns the extensions of one Talos release ("v1.13.9" or "1.13.9").
func (c *Catalog) Release(talos string) (Release, bool) {
	v, err := parseTag(talos)
	if err != nil {
		return Release{}, false
	}

	r, ok := c.releases[v.tag()]

	return r, ok
}

// Releases returns every release tag in the catalog, oldest first.
func (c *Catalog) Releases() []string {
	out := make([]string, len(c.order))
	for i, v := range c.order {
		out[i] = v.tag()
	}

	return out
}

// Latest returns the newest final (non-prerelease) release in the catalog.
func (c *Catalog) Latest() (Release, bool) {
	for _, v := range slices.Backward(c.order) {
		if !v.prerelease() {
			return c.releases[v.tag()], true
		}
	}

	return Release{}, false
}

// ReleaseStatus says what the catalog knows about a Talos version.
type ReleaseStatus int

const (
	// ReleaseUnknown is not a release tag the catalog can vouch for — malformed, older than the
	// data, or a prerelease the data does not list.
	ReleaseUnknown ReleaseStatus = iota
	// ReleaseInData means the catalog lists the release's extensions.
	ReleaseInData
	// ReleaseNewerThanData is a well-formed final release newer than anything the data has for
	// its minor line. It is probably real, but its extension tags are missing: refresh the data
	// rather than guess.
	ReleaseNewerThanData
)

func (s ReleaseStatus) String() string {
	switch s {
	case ReleaseInData:
		return "in-data"
	case ReleaseNewerThanData:
		return "newer-than-data"
	default:
		return "unknown"
	}
}

// Status classifies a Talos version against the catalog.
func (c *Catalog) Status(talos string) ReleaseStatus {
	v, err := parseTag(talos)
	if err != nil {
		return ReleaseUnknown
	}

	if _, ok := c.releases[v.tag()]; ok {
		return ReleaseInData
	}

	if v.prerelease() || len(c.order) == 0 {
		return ReleaseUnknown
	}

	// Patches of an older minor keep coming after a newer minor ships, so "newer" is judged
	// against the newest release of the same minor, or against everything for a new minor.
	for _, known := range slices.Backward(c.order) {
		if known.sameMinor(v) {
			if v.compare(known) > 0 {
				return ReleaseNewerThanData
			}

			return ReleaseUnknown
		}
	}

	if v.compareCore(c.order[len(c.order)-1]) > 0 {
		return ReleaseNewerThanData
	}

	return ReleaseUnknown
}

// Tag returns the release tag ("v1.13.9").
func (r Release) Tag() string {
	return r.tag
}

// Extensions returns a copy of the release's bare extension names and image tags.
func (r Release) Extensions() map[string]string {
	return maps.Clone(r.extensions)
}

// Names returns the release's extension names, sorted.
func (r Release) Names() []string {
	return slices.Sorted(maps.Keys(r.extensions))
}

// Has reports whether the release publishes the extension. The name may be bare, a
// schematic name or an image reference. A derived release knows its names without every
// tag: Has is true there and ImageTag may still say the tag is unknown.
func (r Release) Has(name string) bool {
	n, ok := NormalizeName(name)
	if !ok {
		return false
	}

	_, ok = r.extensions[n]

	return ok
}

// ImageTag returns the extension's image tag on this release; ok is false when the release
// does not publish it, or (derived releases) when its tag is not known. The name may be bare,
// a schematic name or an image reference (whose own tag is ignored).
func (r Release) ImageTag(name string) (string, bool) {
	n, ok := NormalizeName(name)
	if !ok {
		return "", false
	}

	tag := r.extensions[n]

	return tag, tag != ""
}

// Derived says how the release was derived, "" for a release of the data.
func (r Release) Derived() string {
	return r.derived
}

// Ref returns the extension's full image reference on this release
// ("ghcr.io/siderolabs/zfs:2.3.3-v1.13.9").
func (r Release) Ref(name string) (string, bool) {
	n, ok := NormalizeName(name)
	if !ok {
		return "", false
	}

	tag := r.extensions[n]
	if tag == "" {
		return "", false
	}

	return FormatRef(n, tag), true
}
