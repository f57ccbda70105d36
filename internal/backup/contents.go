package backup

import (
	"maps"
	"slices"
	"strings"
)

// Contents is what an etcd snapshot holds, counted without reading a value.
type Contents struct {
	// Revision is the newest revision of the key space.
	Revision int64
	// Keys counts the keys alive at Revision (deleted keys are not counted).
	Keys int
	// Resources counts the live Kubernetes objects per resource (Resource of their key).
	Resources map[string]int
	// EtcdHash says whether the snapshot carried etcd's own SHA-256 of its database, as a
	// snapshot streamed by etcd does, and it matched.
	EtcdHash bool
}

// ResourceNames are the resources of c sorted by name.
func (c Contents) ResourceNames() []string {
	return slices.Sorted(maps.Keys(c.Resources))
}

// Resource is the Kubernetes resource a key of etcd stores an object of: the API server
// keeps objects under /registry/<resource>/[<namespace>/]<name>, those of an API group
// other than the core ones under /registry/<group>/<resource>/...; ok is false for a key
// outside /registry/.
func Resource(key []byte) (string, bool) {
	rest, ok := strings.CutPrefix(string(key), "/registry/")
	if !ok {
		return "", false
	}

	parts := strings.SplitN(rest, "/", 3)
	if parts[0] == "" {
		return "", false
	}

	if strings.Contains(parts[0], ".") && len(parts) == 3 {
		return parts[0] + "/" + parts[1], true
	}

	return parts[0], true
}
