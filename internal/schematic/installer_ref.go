package schematic

import (
	"errors"
	"fmt"
	"strings"
)

// InstallerRef is an installer image reference taken apart, so that two
// installers can be compared by what differs: the registry, the flavour, the
// schematic or the Talos version.
type InstallerRef struct {
	// Registry is the host (and port) the image is pulled from; empty for
	// Docker Hub references that name none.
	Registry string
	// Repository is the path below the registry without the schematic ID:
	// "nocloud-installer", "installer-secureboot", "siderolabs/installer".
	Repository string
	// ID is the schematic ID of an Image Factory reference, else empty.
	ID string
	// Tag is the Talos version the factory serves ("v1.13.9"); empty when the
	// reference names none.
	Tag string
	// Digest pins the image ("sha256:..."); it does not change which image it is.
	Digest string
}

// ErrNotImageRef is a reference that is empty or not shaped like an image reference.
var ErrNotImageRef = errors.New("not an image reference")

// ParseInstallerImage takes an image reference apart. An Image Factory
// installer is recognised by its shape, <registry>/<repository>/<id>:<tag>
// with a 64-hex-digit ID, so a self-hosted factory is recognised too.
func ParseInstallerImage(ref string) (InstallerRef, error) {
	var r InstallerRef

	if ref == "" || strings.ContainsAny(ref, " \t\r\n") {
		return r, fmt.Errorf("%q: %w", ref, ErrNotImageRef)
	}

	name := ref
	if at := strings.IndexByte(name, '@'); at >= 0 {
		name, r.Digest = name[:at], name[at+1:]
		if r.Digest == "" {
			return InstallerRef{}, fmt.Errorf("%q: empty digest: %w", ref, ErrNotImageRef)
		}
	}

	// A colon after the last slash starts the tag; one before it is a registry port.
	if colon := strings.LastIndexByte(name, ':'); colon > strings.LastIndexByte(name, '/') {
		name, r.Tag = name[:colon], name[colon+1:]
		if r.Tag == "" {
			return InstallerRef{}, fmt.Errorf("%q: empty tag: %w", ref, ErrNotImageRef)
		}
	}

	parts := strings.Split(name, "/")
	for _, p := range parts {
		if p == "" {
			return InstallerRef{}, fmt.Errorf("%q: empty path component: %w", ref, ErrNotImageRef)
		}
	}

	if len(parts) > 1 && isRegistryHost(parts[0]) {
		r.Registry, parts = parts[0], parts[1:]
	}

	if len(parts) > 1 && r.Registry != "" && isID(parts[len(parts)-1]) {
		r.ID, parts = parts[len(parts)-1], parts[:len(parts)-1]
	}

	r.Repository = strings.Join(parts, "/")

	return r, nil
}

// String puts the reference back together.
func (r InstallerRef) String() string {
	var b strings.Builder

	if r.Registry != "" {
		b.WriteString(r.Registry + "/")
	}

	b.WriteString(r.Repository)

	if r.ID != "" {
		b.WriteString("/" + r.ID)
	}

	if r.Tag != "" {
		b.WriteString(":" + r.Tag)
	}

	if r.Digest != "" {
		b.WriteString("@" + r.Digest)
	}

	return b.String()
}

// isRegistryHost follows Docker's rule: the first component names a registry
// when it has a dot or a port, or is localhost.
func isRegistryHost(s string) bool {
	return strings.ContainsAny(s, ".:") || s == "localhost"
}

func isID(s string) bool {
	if len(s) != 64 {
		return false
	}

	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}

	return true
}
