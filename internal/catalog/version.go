package catalog

import (
	"fmt"
	"iter"
	"regexp"
	"slices"
	"strconv"
	"sync"

	version "github.com/hashicorp/go-version"
)

// The version grammar is stricter than go-version's: no fourth segment, no build metadata on
// Talos tags, at most one leading "v". Prerelease identifiers follow semver.
var (
	talosTagPattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)
	})
	talosLoosePattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?)?$`)
	})
	k8sPattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?)?$`)
	})
)

// VersionError reports a string that is not a well-formed version.
type VersionError struct {
	What  string // "Talos" or "Kubernetes"
	Value string
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("%q is not a %s version", e.Value, e.What)
}

// semver is a parsed version with the core segments at hand.
type semver struct {
	v                   *version.Version
	major, minor, patch int64
}

func newSemver(s string, pattern *regexp.Regexp, what string) (semver, error) {
	if !pattern.MatchString(s) {
		return semver{}, &VersionError{What: what, Value: s}
	}

	v, err := version.NewSemver(s)
	if err != nil {
		return semver{}, &VersionError{What: what, Value: s}
	}

	seg := v.Segments64()

	return semver{v: v, major: seg[0], minor: seg[1], patch: seg[2]}, nil
}

// parseTag parses a full Talos release tag ("v1.13.9", "1.14.0-rc.1").
func parseTag(s string) (semver, error) {
	return newSemver(s, talosTagPattern(), "Talos")
}

// parseTalos parses a Talos version where the patch may be left out ("1.13" means 1.13.0).
func parseTalos(s string) (semver, error) {
	return newSemver(s, talosLoosePattern(), "Talos")
}

func parseKubernetes(s string) (semver, error) {
	return newSemver(s, k8sPattern(), "Kubernetes")
}

// tag renders the version the way Talos tags releases.
func (s semver) tag() string {
	return "v" + s.v.String()
}

func (s semver) minorLabel() string {
	return minorLabel(s.major, s.minor)
}

func minorLabel(major, minor int64) string {
	return strconv.FormatInt(major, 10) + "." + strconv.FormatInt(minor, 10)
}

func (s semver) prerelease() bool {
	return s.v.Prerelease() != ""
}

// compare orders full versions, prereleases before their release.
func (s semver) compare(o semver) int {
	return s.v.Compare(o.v)
}

// compareCore orders by major.minor.patch alone, as machinery does for its floors and ranges.
func (s semver) compareCore(o semver) int {
	for _, d := range [3]int64{s.major - o.major, s.minor - o.minor, s.patch - o.patch} {
		switch {
		case d < 0:
			return -1
		case d > 0:
			return 1
		}
	}

	return 0
}

func (s semver) sameMinor(o semver) bool {
	return s.major == o.major && s.minor == o.minor
}

// sortTags orders release tags oldest first, as canonical tags. Every tag must have been
// checked on the way in: one that does not parse is left out.
func sortTags(tags iter.Seq[string]) []string {
	var vs []semver

	for tag := range tags {
		if v, err := parseTag(tag); err == nil {
			vs = append(vs, v)
		}
	}

	slices.SortFunc(vs, semver.compare)

	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.tag()
	}

	return out
}

// ValidVersion says whether s is a version: major.minor with an optional patch, prerelease
// and build ("v1.14", "v1.36.4", "1.14.0-rc.1").
func ValidVersion(s string) bool {
	_, err := parseKubernetes(s)

	return err == nil
}

// NormalizeTag returns the canonical tag for a full Talos release version ("1.13.9" →
// "v1.13.9").
func NormalizeTag(s string) (string, error) {
	v, err := parseTag(s)
	if err != nil {
		return "", err
	}

	return v.tag(), nil
}

// CompareMinor compares the minor line of a Talos version ("v1.13.9") with a minor ("1.13"):
// -1 when older, 0 on that line, +1 when newer.
func CompareMinor(talos, minor string) (int, error) {
	v, err := parseTalos(talos)
	if err != nil {
		return 0, err
	}

	m, err := parseTalos(minor)
	if err != nil {
		return 0, err
	}

	switch {
	case v.major != m.major:
		return sign(v.major - m.major), nil
	default:
		return sign(v.minor - m.minor), nil
	}
}

func sign(d int64) int {
	switch {
	case d < 0:
		return -1
	case d > 0:
		return 1
	default:
		return 0
	}
}
