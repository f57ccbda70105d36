package factory

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"time"
)

// diskCache keeps raw listing responses, one file per URL, so a run of
// validate on every pull request does not ask the factory the same question.
type diskCache struct {
	dir string
	ttl time.Duration
}

type cacheEntry struct {
	URL       string          `json:"url"`
	FetchedAt time.Time       `json:"fetchedAt"`
	Body      json.RawMessage `json:"body"`
}

func (d *diskCache) path(url string) string {
	sum := sha256.Sum256([]byte(url))

	return filepath.Join(d.dir, hex.EncodeToString(sum[:16])+".json")
}

// get returns the body cached for url if it is younger than the TTL. Any
// problem with the entry (missing, unreadable, another URL, written in the
// future) is a miss: the cache only ever saves a request.
func (d *diskCache) get(url string, now time.Time) ([]byte, bool) {
	data, err := os.ReadFile(d.path(url))
	if err != nil {
		return nil, false
	}

	var e cacheEntry
	if err := json.Unmarshal(data, &e); err != nil || e.URL != url {
		return nil, false
	}

	age := now.Sub(e.FetchedAt)
	if age < 0 || age >= d.ttl {
		return nil, false
	}

	return e.Body, true
}

// put stores body for url, atomically so a concurrent reader sees the old
// entry or the new one.
func (d *diskCache) put(url string, body []byte, now time.Time) error {
	data, err := json.Marshal(cacheEntry{URL: url, FetchedAt: now, Body: body})
	if err != nil {
		return err
	}

	if err := os.MkdirAll(d.dir, 0o755); err != nil {
		return err
	}

	tmp, err := os.CreateTemp(d.dir, ".entry-*")
	if err != nil {
		return err
	}

	if _, err := tmp.Write(data); err != nil {
		tmp.Close()           //nolint:errcheck // the write error is the one to report
		os.Remove(tmp.Name()) //nolint:errcheck // best effort on a failed write

		return err
	}

	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name()) //nolint:errcheck // best effort on a failed write

		return err
	}

	return os.Rename(tmp.Name(), d.path(url))
}
