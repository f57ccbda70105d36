package catalog

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Derive builds the data of a release the extension data lacks, for use without the Image
// Factory: the extension names of the newest older release of its minor that the data holds
// (a patch release keeps its minor's extensions), and the tags that the minor's tag templates
// and the facts give: an NVIDIA kernel module is "<driver>-<release tag>" and fabric manager
// "<driver>", where the facts name the track's driver. Every other tag is unknown: ImageTag
// says so and the rules do not judge it. ok is false for a release of a minor the data does
// not hold, a prerelease the facts do not name, or a malformed tag.
func (c *Catalog) Derive(tag string, facts *Facts) (Release, bool) {
	v, err := parseTag(tag)
	if err != nil {
		return Release{}, false
	}

	if r, ok := c.releases[v.tag()]; ok {
		return r, true
	}

	rf, inFacts := facts.Release(v.tag())
	if v.prerelease() && !inFacts {
		return Release{}, false
	}

	var base Release

	for _, known := range slices.Backward(c.order) {
		if known.sameMinor(v) && known.compare(v) < 0 && c.releases[known.tag()].derived == "" {
			base = c.releases[known.tag()]

			break
		}
	}

	if base.tag == "" {
		return Release{}, false
	}

	exts := make(map[string]string, len(base.extensions))

	var drivers []string

	for _, name := range slices.Sorted(maps.Keys(base.extensions)) {
		exts[name] = ""

		ext, ok := ParseNvidia(name)
		if !ok {
			continue
		}

		driver := rf.Nvidia[ext.Flavour]
		if driver == "" {
			continue
		}

		switch {
		case ext.Kind.KernelModule():
			exts[name] = driver + "-" + v.tag()
		case ext.Kind == FabricManager:
			exts[name] = driver
		}
	}

	for _, f := range flavours {
		if d := rf.Nvidia[f]; d != "" {
			drivers = append(drivers, fmt.Sprintf("%s %s", f, d))
		}
	}

	how := fmt.Sprintf("the extensions of %s", base.tag)
	if len(drivers) > 0 {
		how += ", NVIDIA drivers " + strings.Join(drivers, ", ") + " from the release notes"
		if rf.Derived != "" {
			how += " (" + rf.Derived + ")"
		}
	}

	return Release{tag: v.tag(), extensions: exts, derived: how}, true
}

// With returns a catalog that also holds r (in place of any release of the same tag).
func (c *Catalog) With(r Release) *Catalog {
	releases := maps.Clone(c.releases)
	releases[r.tag] = r

	return newCatalog(releases)
}

// Known returns every release tag the extension data or the facts name, oldest first: the
// releases this build knows exist, with or without their extensions.
func (c *Catalog) Known(facts *Facts) []string {
	return slices.Compact(sortTags(slices.Values(slices.Concat(c.Releases(), facts.Tags()))))
}

// NewestKnownPatch returns the newest final release of a minor ("1.13") the extension data
// or the facts name: the release to upgrade through when a bump skips that minor.
func (c *Catalog) NewestKnownPatch(minor string, facts *Facts) (string, bool) {
	m, err := parseTalos(minor)
	if err != nil {
		return "", false
	}

	for _, tag := range slices.Backward(c.Known(facts)) {
		if v, err := parseTag(tag); err == nil && v.sameMinor(m) && !v.prerelease() {
			return tag, true
		}
	}

	return "", false
}

// BeyondKnown says whether tag is a final release newer than every release of its minor the
// extension data or the facts name (a release made after this build, or one that does not
// exist), and the newest known one of that minor ("" when the minor has none).
func (c *Catalog) BeyondKnown(tag string, facts *Facts) (newest string, beyond bool) {
	v, err := parseTag(tag)
	if err != nil || v.prerelease() {
		return "", false
	}

	newest, ok := c.NewestKnownPatch(v.minorLabel(), facts)
	if !ok {
		return "", true
	}

	n, err := parseTag(newest)

	return newest, err == nil && v.compare(n) > 0
}

// NewestKnownStable returns the newest final release the extension data or the facts name.
func (c *Catalog) NewestKnownStable(facts *Facts) (string, bool) {
	known := c.Known(facts)

	for _, tag := range slices.Backward(known) {
		if !IsPreRelease(tag) {
			return tag, true
		}
	}

	return "", false
}
