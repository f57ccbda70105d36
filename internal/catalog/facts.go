package catalog

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sync"
	"time"
)

// The hand-kept release facts: what the release notes and the Talos sources verify about
// releases the extension data does not hold (tags, dates, drivers), and the compatibility
// entry of a minor that this build's machinery does not know yet. A cell that could not be
// verified is left out, never guessed: talops learns it from the Image Factory at run time.
//
//go:embed data/releases.json
var factsJSON []byte

var embeddedFacts = sync.OnceValue(func() *Facts {
	f, err := LoadFacts(factsJSON)
	if err != nil {
		// Part of the source tree, loaded by a test.
		panic(fmt.Sprintf("catalog: embedded data/releases.json: %v", err))
	}

	return f
})

// Facts are the hand-kept release facts.
type Facts struct {
	// Checked is the day the facts (and the extension data beside them) were last checked
	// against the releases published.
	Checked  time.Time
	minors   map[string]MinorFacts
	releases map[string]ReleaseFacts
}

// MinorFacts is the compatibility entry of a Talos minor, kept by hand until machinery
// carries it.
type MinorFacts struct {
	// UpgradeFrom is the oldest host version that may upgrade to the minor; DowngradeBelow
	// the version a host must be below to downgrade to it.
	UpgradeFrom    string `json:"upgradeFrom"`
	DowngradeBelow string `json:"downgradeBelow"`
	Kubernetes     struct {
		Min string `json:"min"`
		Max string `json:"max"`
	} `json:"kubernetes"`
	// NvidiaBranches are the driver branches of the tracks, where known ("lts": "620").
	NvidiaBranches map[Flavour]string `json:"nvidiaBranches,omitempty"`
	// OpenOnly are the tracks built as open kernel modules only.
	OpenOnly []Flavour `json:"openOnly,omitempty"`
	Source   string    `json:"source"`
}

// ReleaseFacts is what is verified of one release the extension data may lack.
type ReleaseFacts struct {
	Date       string `json:"date,omitempty"`
	Kubernetes string `json:"kubernetes,omitempty"`
	Etcd       string `json:"etcd,omitempty"`
	Kernel     string `json:"kernel,omitempty"`
	// Nvidia are the driver versions per track, where the notes give them.
	Nvidia map[Flavour]string `json:"nvidia,omitempty"`
	// Derived says which of the values above are derived rather than read, and how.
	Derived string `json:"derived,omitempty"`
	Source  string `json:"source"`
}

type factsShape struct {
	Checked  string                  `json:"checked"`
	Minors   map[string]MinorFacts   `json:"minors"`
	Releases map[string]ReleaseFacts `json:"releases"`
}

// EmbeddedFacts returns the facts compiled into the binary.
func EmbeddedFacts() *Facts {
	return embeddedFacts()
}

// LoadFacts parses the facts file.
func LoadFacts(data []byte) (*Facts, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()

	var s factsShape
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("load release facts: %w", err)
	}

	checked, err := time.Parse(time.DateOnly, s.Checked)
	if err != nil {
		return nil, fmt.Errorf("load release facts: checked: %w", err)
	}

	for minor, m := range s.Minors {
		if err := m.check(minor); err != nil {
			return nil, fmt.Errorf("load release facts: minor %s: %w", minor, err)
		}
	}

	for tag, r := range s.Releases {
		if err := r.check(tag); err != nil {
			return nil, fmt.Errorf("load release facts: release %s: %w", tag, err)
		}
	}

	return &Facts{Checked: checked, minors: s.Minors, releases: s.Releases}, nil
}

func (m MinorFacts) check(minor string) error {
	v, err := parseTalos(minor)
	if err != nil || v.minorLabel() != minor {
		return fmt.Errorf("the key must be a minor such as 1.15")
	}

	for _, s := range []string{m.UpgradeFrom, m.DowngradeBelow} {
		if _, err := parseTalos(s); err != nil {
			return err
		}
	}

	for _, s := range []string{m.Kubernetes.Min, m.Kubernetes.Max} {
		if _, err := parseKubernetes(s); err != nil {
			return err
		}
	}

	for f, branch := range m.NvidiaBranches {
		if _, ok := ParseFlavour(string(f)); !ok {
			return fmt.Errorf("nvidiaBranches: %q is not a track", f)
		}

		if b, ok := DriverBranch(branch + ".0"); !ok || b != branch {
			return fmt.Errorf("nvidiaBranches: %q is not a driver branch", branch)
		}
	}

	for _, f := range m.OpenOnly {
		if _, ok := ParseFlavour(string(f)); !ok {
			return fmt.Errorf("openOnly: %q is not a track", f)
		}
	}

	if m.Source == "" {
		return fmt.Errorf("no source")
	}

	return nil
}

func (r ReleaseFacts) check(tag string) error {
	v, err := parseTag(tag)
	if err != nil || v.tag() != tag {
		return fmt.Errorf("the key must be a release tag such as v1.14.7")
	}

	if r.Date != "" {
		if _, err := time.Parse(time.DateOnly, r.Date); err != nil {
			return fmt.Errorf("date: %w", err)
		}
	}

	if r.Kubernetes != "" {
		if _, err := parseKubernetes(r.Kubernetes); err != nil {
			return err
		}
	}

	for f, driver := range r.Nvidia {
		if _, ok := ParseFlavour(string(f)); !ok {
			return fmt.Errorf("nvidia: %q is not a track", f)
		}

		if _, ok := DriverBranch(driver); !ok {
			return fmt.Errorf("nvidia: %q is not a driver version", driver)
		}
	}

	if r.Source == "" {
		return fmt.Errorf("no source")
	}

	return nil
}

// Release returns the facts of a release tag.
func (f *Facts) Release(tag string) (ReleaseFacts, bool) {
	v, err := parseTag(tag)
	if err != nil {
		return ReleaseFacts{}, false
	}

	r, ok := f.releases[v.tag()]

	return r, ok
}

// Minor returns the hand-kept compatibility entry of a Talos version's minor.
func (f *Facts) Minor(talos string) (MinorFacts, bool) {
	v, err := parseTalos(talos)
	if err != nil {
		return MinorFacts{}, false
	}

	m, ok := f.minors[v.minorLabel()]

	return m, ok
}

// Tags returns the release tags the facts name, oldest first.
func (f *Facts) Tags() []string {
	return sortTags(maps.Keys(f.releases))
}

// minorTags are the minors the facts keep a compatibility entry for, sorted.
func (f *Facts) minorTags() []string {
	return slices.Sorted(maps.Keys(f.minors))
}

var checkedLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^  "checked": "[0-9]{4}-[0-9]{2}-[0-9]{2}",$`) })

// SetChecked returns the facts file with its checked date set to day, and the rest of its
// bytes as they were (the file is kept by hand).
func SetChecked(data []byte, day time.Time) ([]byte, error) {
	if _, err := LoadFacts(data); err != nil {
		return nil, err
	}

	if len(checkedLine().FindAllIndex(data, -1)) != 1 {
		return nil, fmt.Errorf("release facts: no single \"checked\" line to set")
	}

	return checkedLine().ReplaceAll(data, []byte(`  "checked": "`+day.UTC().Format(time.DateOnly)+`",`)), nil
}
