package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"time"
)

// Learnt holds the releases talops learnt from an Image Factory at run time: the extension
// listing of a release the embedded data lacks, with the factory that gave it and when.
// Published releases do not change, so an entry is kept for good; it lives in a file of the
// user's cache that the Actions keep between runs. The zero value is empty.
type Learnt struct {
	releases map[string]LearntRelease
}

// LearntRelease is one learnt release.
type LearntRelease struct {
	Release Release
	// Factory is the Image Factory that listed it; At is when.
	Factory string
	At      time.Time
}

type learntShape struct {
	Releases map[string]learntEntry `json:"releases"`
}

type learntEntry struct {
	Factory    string            `json:"factory"`
	At         time.Time         `json:"at"`
	Extensions map[string]string `json:"extensions"`
}

// LoadLearnt parses a file of learnt releases. Every entry is checked as the embedded data
// is: a damaged file is an error for the caller to set aside, never data.
func LoadLearnt(data []byte) (*Learnt, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()

	var s learntShape
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("load learnt releases: %w", err)
	}

	l := &Learnt{releases: map[string]LearntRelease{}}

	for tag, e := range s.Releases {
		if len(e.Extensions) == 0 || e.Factory == "" || e.At.IsZero() {
			return nil, fmt.Errorf("load learnt releases: %s: incomplete entry", tag)
		}

		r, err := newRelease(tag, e.Extensions)
		if err != nil {
			return nil, fmt.Errorf("load learnt releases: %w", err)
		}

		l.releases[tag] = LearntRelease{Release: r, Factory: e.Factory, At: e.At.UTC()}
	}

	return l, nil
}

// Get returns the release learnt from factory, if any.
func (l *Learnt) Get(tag, factory string) (LearntRelease, bool) {
	v, err := parseTag(tag)
	if err != nil || l == nil {
		return LearntRelease{}, false
	}

	lr, ok := l.releases[v.tag()]
	if !ok || lr.Factory != factory {
		return LearntRelease{}, false
	}

	return lr, true
}

// With returns the learnt releases plus one more (replacing an entry of the same tag).
func (l *Learnt) With(lr LearntRelease) *Learnt {
	out := &Learnt{releases: map[string]LearntRelease{}}
	if l != nil {
		out.releases = maps.Clone(l.releases)
	}

	lr.At = lr.At.UTC()
	out.releases[lr.Release.tag] = lr

	return out
}

// Tags lists the learnt releases, oldest first.
func (l *Learnt) Tags() []string {
	if l == nil {
		return nil
	}

	return sortTags(maps.Keys(l.releases))
}

// Encode renders the learnt releases, the same bytes for the same content.
func (l *Learnt) Encode() []byte {
	s := learntShape{Releases: map[string]learntEntry{}}

	for tag, lr := range l.releases {
		s.Releases[tag] = learntEntry{Factory: lr.Factory, At: lr.At, Extensions: lr.Release.extensions}
	}

	// Map keys are sorted by encoding/json, so the bytes are stable.
	out, _ := json.MarshalIndent(s, "", "  ")

	return append(out, '\n')
}
