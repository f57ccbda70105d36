package factory

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/talops/talops/internal/schematic"
)

// Extension is one official extension the factory offers for a Talos version.
type Extension struct {
	Name        string `json:"name"`   // "siderolabs/nonfree-kmod-nvidia-lts"
	Ref         string `json:"ref"`    // "ghcr.io/siderolabs/nonfree-kmod-nvidia-lts:580.95.05-v1.13.9"
	Digest      string `json:"digest"` // "sha256:…"
	Author      string `json:"author"`
	Description string `json:"description"`
}

// Tag returns the image tag of Ref ("580.95.05-v1.13.9"); for NVIDIA
// extensions it carries the driver version. Empty when Ref has no tag.
func (e Extension) Tag() string {
	ref, _, _ := strings.Cut(e.Ref, "@")

	i := strings.LastIndex(ref, ":")
	if i < 0 || i < strings.LastIndex(ref, "/") {
		return ""
	}

	return ref[i+1:]
}

// Versions lists the Talos release tags the factory builds ("v1.13.9").
func (c *Client) Versions(ctx context.Context) ([]string, error) {
	var versions []string
	if err := c.getJSON(ctx, "list Talos versions", "/versions", &versions); err != nil {
		return nil, err
	}

	return versions, nil
}

// OfficialExtensions lists the official extensions the factory offers for a
// Talos version ("v1.13.9"; the leading "v" may be left out).
func (c *Client) OfficialExtensions(ctx context.Context, talosVersion string) ([]Extension, error) {
	v := schematic.VersionTag(talosVersion)
	if !factoryVersion().MatchString(v) {
		return nil, &InvalidVersionError{Op: "list official extensions", Version: talosVersion}
	}

	var exts []Extension
	if err := c.getJSON(ctx, "list official extensions for Talos "+v,
		"/version/"+url.PathEscape(v)+"/extensions/official", &exts); err != nil {
		return nil, err
	}

	return exts, nil
}

// factoryVersion is what the factory's semver.Parse takes after the "v": MAJOR.MINOR.PATCH
// without leading zeros, an optional pre-release and build.
var factoryVersion = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)` +
		`(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)
})

// getJSON decodes a listing into out, from the cache while it is fresh. Only
// a response that decodes is cached.
func (c *Client) getJSON(ctx context.Context, op, path string, out any) error {
	key := c.base.JoinPath(path).String()

	if c.cache != nil {
		if body, ok := c.cache.get(key, c.now()); ok && json.Unmarshal(body, out) == nil {
			return nil
		}
	}

	body, err := c.do(ctx, request{op: op, method: http.MethodGet, path: path})
	if err != nil {
		return err
	}

	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("%s: decode the factory's answer: %w", op, err)
	}

	if c.cache != nil {
		// A cache that cannot be written costs a request next time, nothing more.
		_ = c.cache.put(key, body, c.now())
	}

	return nil
}
