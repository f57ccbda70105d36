package catalog

// SplitPreReleases sorts the tags of the factory's /versions into those catalog update
// asks for and the pre-releases it skips. The factory lists the alpha, beta and rc
// releases of the newest minor beside the releases; a pre-release is kept while its
// release is not out (a cluster that tries it gets its data), and skipped once the release
// is listed: nobody should install it then, and the data would carry it for good.
// Malformed tags are kept for Update to skip, as it does.
func SplitPreReleases(versions []string) (keep, superseded []string) {
	released := map[[3]int64]bool{}

	for _, s := range versions {
		if v, err := parseTag(s); err == nil && !v.prerelease() {
			released[core(v)] = true
		}
	}

	for _, s := range versions {
		v, err := parseTag(s)
		if err == nil && v.prerelease() && released[core(v)] {
			superseded = append(superseded, v.tag())

			continue
		}

		keep = append(keep, s)
	}

	return keep, superseded
}

// core is a version's major.minor.patch, which a pre-release shares with its release.
func core(v semver) [3]int64 { return [3]int64{v.major, v.minor, v.patch} }

// IsPreRelease reports whether tag is an alpha, beta or rc (a tag with a pre-release part).
func IsPreRelease(tag string) bool {
	v, err := parseTag(tag)

	return err == nil && v.prerelease()
}
