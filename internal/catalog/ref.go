package catalog

import (
	"regexp"
	"strings"
	"sync"
)

// Official extensions are published under one repository prefix; schematics name them with
// the namespace alone.
const (
	registryHost = "ghcr.io"
	namespace    = "siderolabs"
	imagePrefix  = registryHost + "/" + namespace + "/"
)

var (
	// One path component of an OCI repository name.
	namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*$`) })
	// A tag's characters; at most maxTag of them, checked apart: a bounded repetition
	// compiles into one copy per count, paid by every command at start-up.
	tagPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]*$`) })
	// Digests are kept opaque; the algorithm and hex shape follow the OCI grammar.
	// The encoded part's length (at least minDigest) is checked apart, like a tag's.
	digestPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]+([+._-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$`) })
)

func validName(s string) bool { return namePattern().MatchString(s) }

// maxTag is the longest OCI tag.
const maxTag = 128

func validTag(s string) bool { return len(s) <= maxTag && tagPattern().MatchString(s) }

// minDigest is the shortest encoded part of a digest the OCI grammar allows.
const minDigest = 32

func validDigest(s string) bool {
	_, encoded, _ := strings.Cut(s, ":")

	return len(encoded) >= minDigest && digestPattern().MatchString(s)
}

// ParseExtensionRef splits an official extension reference into its bare name and image tag.
// It accepts the image form "ghcr.io/siderolabs/<name>[:<tag>][@<digest>]", the schematic form
// "siderolabs/<name>" and a bare name; the digest, when present, is checked and dropped. tag is
// empty when the reference has none. References outside ghcr.io/siderolabs are not official
// and give ok == false.
func ParseExtensionRef(s string) (name, tag string, ok bool) {
	rest := s

	if before, digest, found := strings.Cut(rest, "@"); found {
		if !validDigest(digest) {
			return "", "", false
		}

		rest = before
	}

	switch {
	case strings.HasPrefix(rest, imagePrefix):
		rest = rest[len(imagePrefix):]
	case strings.HasPrefix(rest, namespace+"/"):
		rest = rest[len(namespace)+1:]
	}

	if before, t, found := strings.Cut(rest, ":"); found {
		if !validTag(t) {
			return "", "", false
		}

		rest, tag = before, t
	}

	if !validName(rest) {
		return "", "", false
	}

	return rest, tag, true
}

// NormalizeName returns the bare extension name ("nvidia-container-toolkit-lts") for any form
// ParseExtensionRef accepts.
func NormalizeName(s string) (string, bool) {
	name, _, ok := ParseExtensionRef(s)

	return name, ok
}

// SchematicName returns the name a schematic's officialExtensions list uses
// ("siderolabs/<name>").
func SchematicName(name string) string {
	return namespace + "/" + name
}

// FormatRef returns the image reference of an official extension.
func FormatRef(name, tag string) string {
	return imagePrefix + name + ":" + tag
}
