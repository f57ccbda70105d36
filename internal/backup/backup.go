// Package backup is what a backup of a cluster is, whatever holds it: its name, sortable by
// time, the manifest written beside the encrypted snapshot, what a snapshot holds (revision,
// keys, Kubernetes objects per resource) and the Store a destination is.
package backup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Suffixes of a backup's two objects: the age-encrypted snapshot and its manifest.
const (
	SnapshotSuffix = ".snapshot.age"
	ManifestSuffix = ".json"
)

// timeLayout dates a backup's name: UTC, fixed width, so names sort by time.
const timeLayout = "20060102T150405Z"

// Name is the name of a backup of cluster taken at t: <cluster>-<UTC time>.
func Name(cluster string, t time.Time) string {
	return cluster + "-" + t.UTC().Format(timeLayout)
}

var namePattern = regexp.MustCompile(`^(.+)-(\d{8}T\d{6}Z)$`)

// ParseName splits a backup's name into its cluster and time; ok is false for a name no
// backup has.
func ParseName(name string) (cluster string, t time.Time, ok bool) {
	m := namePattern.FindStringSubmatch(name)
	if m == nil {
		return "", time.Time{}, false
	}

	t, err := time.Parse(timeLayout, m[2])
	if err != nil {
		return "", time.Time{}, false
	}

	return m[1], t, true
}

// Names are the backups among the objects of a store: those with a manifest, oldest first
// (by time, then name). A snapshot without its manifest is not a backup: its writing did
// not finish.
func Names(objects []string) []string {
	var out []string

	for _, o := range objects {
		name, ok := strings.CutSuffix(o, ManifestSuffix)
		if !ok {
			continue
		}

		if _, _, ok := ParseName(name); ok {
			out = append(out, name)
		}
	}

	slices.SortFunc(out, func(a, b string) int {
		_, ta, _ := ParseName(a)
		_, tb, _ := ParseName(b)

		if c := ta.Compare(tb); c != 0 {
			return c
		}

		return strings.Compare(a, b)
	})

	return out
}

// Store is where backups go and come from: a directory or an S3 bucket. Objects
// are named by their base name; Put streams (a snapshot is never held in memory whole)
// and an object appears only once all of it is written.
type Store interface {
	// Put writes the object name from r. An object that exists is not replaced.
	Put(ctx context.Context, name string, r io.Reader) error
	// Get opens the object name; a missing object is an error wrapping ErrNotFound.
	Get(ctx context.Context, name string) (io.ReadCloser, error)
	// List names every object, in no particular order.
	List(ctx context.Context) ([]string, error)
	// Delete removes the object name; one already gone is no error.
	Delete(ctx context.Context, name string) error
	// String names the store for messages (the directory, the bucket).
	String() string
}

// ErrNotFound says a store has no object of that name.
var ErrNotFound = errors.New("no such backup object")

// ParseS3 splits s3://bucket/prefix into its bucket and prefix (no leading or trailing
// slash).
func ParseS3(dest string) (bucket, prefix string, err error) {
	rest, ok := strings.CutPrefix(dest, "s3://")
	if !ok {
		return "", "", fmt.Errorf("backup destination %s: not s3://bucket/prefix", dest)
	}

	bucket, prefix, _ = strings.Cut(rest, "/")
	prefix = strings.Trim(prefix, "/")

	switch {
	case bucket == "":
		return "", "", fmt.Errorf("backup destination %s: no bucket: name it as s3://bucket/prefix", dest)
	case strings.ContainsAny(dest, "?#\\") || strings.Contains("/"+prefix+"/", "/../") || strings.Contains("/"+prefix+"/", "/./") || strings.Contains(prefix, "//"):
		return "", "", fmt.Errorf("backup destination %s: the bucket and prefix are plain path segments", dest)
	}

	return bucket, prefix, nil
}
