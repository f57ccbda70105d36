package catalog_test

import (
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/catalog"
)

// TestDerive_PatchReleaseGetsItsMinorsNamesAndTheNotesDrivers: v1.14.7 is not in the
// extension data; its names come from v1.14.0-rc.1, its NVIDIA kernel module and fabric
// manager tags from the 1.14 templates and the drivers of the notes, and nothing else is
// guessed.
func TestDerive_PatchReleaseGetsItsMinorsNamesAndTheNotesDrivers(t *testing.T) {
	t.Parallel()

	c := catalog.Embedded()

	if _, ok := c.Release("v1.14.7"); ok {
		t.Fatal("v1.14.7 is in the extension data: this test needs a release that is not")
	}

	r, ok := c.Derive("v1.14.7", catalog.EmbeddedFacts())
	if !ok {
		t.Fatal("Derive(v1.14.7): not derived")
	}

	if !strings.Contains(r.Derived(), "v1.14.0-rc.1") || !strings.Contains(r.Derived(), "lts 580.196.07") {
		t.Errorf("Derived() = %q: must name the base release and the drivers", r.Derived())
	}

	for name, want := range map[string]string{
		"nvidia-open-gpu-kernel-modules-lts":        "580.196.07-v1.14.7",
		"nonfree-kmod-nvidia-production":            "595.112.07-v1.14.7",
		"nvidia-fabricmanager-lts":                  "580.196.07",
		"nvidia-open-gpu-kernel-modules-production": "595.112.07-v1.14.7",
	} {
		if got, ok := r.ImageTag(name); !ok || got != want {
			t.Errorf("ImageTag(%s) = %q, %v; want %s", name, got, ok, want)
		}
	}

	// Published, but the tag is not known: the toolkit's version and every other extension.
	for _, name := range []string{"nvidia-container-toolkit-lts", "zfs", "iscsi-tools"} {
		if !r.Has(name) {
			t.Errorf("Has(%s) = false: the minor publishes it", name)
		}

		if tag, ok := r.ImageTag(name); ok {
			t.Errorf("ImageTag(%s) = %q: a derived release must not guess it", name, tag)
		}
	}

	if r.Has("nvidia-open-gpu-kernel-modules-new-feature") {
		t.Error("the new-feature track appears on 1.14")
	}

	if d, _, ok := r.NvidiaDriver(catalog.FlavourLTS); !ok || d != "580.196.07" {
		t.Errorf("NvidiaDriver(lts) = %q, %v; want 580.196.07", d, ok)
	}
}

func TestDerive_RefusesWhatTheDataCannotSpeakFor(t *testing.T) {
	t.Parallel()

	c := catalog.Embedded()
	facts := catalog.EmbeddedFacts()

	for _, tag := range []string{
		"v1.15.0",         // a minor the extension data does not hold
		"v1.15.0-beta.1",  // likewise, though the facts name it
		"v1.14.0-alpha.9", // a prerelease nobody names
		"v1.14.9.1",       // not a tag
		"latest",
	} {
		if r, ok := c.Derive(tag, facts); ok {
			t.Errorf("Derive(%s) = %s, want none", tag, r.Derived())
		}
	}

	// A patch the facts do not name still gets its minor's names, with no driver.
	r, ok := c.Derive("v1.14.12", facts)
	if !ok {
		t.Fatal("Derive(v1.14.12): not derived")
	}

	if _, ok := r.ImageTag("nvidia-open-gpu-kernel-modules-lts"); ok || !r.Has("nvidia-open-gpu-kernel-modules-lts") {
		t.Error("v1.14.12: a driver was guessed, or the module is not listed")
	}
}

func TestKnown_ListsFactsReleasesBesideTheData(t *testing.T) {
	t.Parallel()

	known := catalog.Embedded().Known(catalog.EmbeddedFacts())

	for _, tag := range []string{"v1.13.9", "v1.13.13", "v1.14.0", "v1.14.7", "v1.15.0-beta.1"} {
		if !contains(known, tag) {
			t.Errorf("Known() lacks %s", tag)
		}
	}

	if known[len(known)-1] != "v1.15.0-beta.1" {
		t.Errorf("newest known = %s, want v1.15.0-beta.1", known[len(known)-1])
	}
}

func TestLoadFacts_RefusesUnverifiableShapes(t *testing.T) {
	t.Parallel()

	for name, data := range map[string]string{
		"no source":        `{"checked": "2026-12-02", "minors": {}, "releases": {"v1.14.7": {}}}`,
		"not a tag":        `{"checked": "2026-12-02", "minors": {}, "releases": {"1.14.7": {"source": "x"}}}`,
		"bad driver":       `{"checked": "2026-12-02", "minors": {}, "releases": {"v1.14.7": {"source": "x", "nvidia": {"lts": "580"}}}}`,
		"bad track":        `{"checked": "2026-12-02", "minors": {}, "releases": {"v1.14.7": {"source": "x", "nvidia": {"beta": "580.1.2"}}}}`,
		"unknown field":    `{"checked": "2026-12-02", "minors": {}, "releases": {"v1.14.7": {"source": "x", "toolkit": "v1.19.1"}}}`,
		"bad minor key":    `{"checked": "2026-12-02", "minors": {"1.15.0": {"upgradeFrom": "1.13.0", "downgradeBelow": "1.17.0", "kubernetes": {"min": "1.33.0", "max": "1.38.99"}, "source": "x"}}, "releases": {}}`,
		"bad checked date": `{"checked": "December", "minors": {}, "releases": {}}`,
	} {
		if _, err := catalog.LoadFacts([]byte(data)); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}

	return false
}

func TestSetChecked_MovesOnlyTheDate(t *testing.T) {
	t.Parallel()

	data := []byte("{\n  \"checked\": \"2026-12-02\",\n  \"minors\": {},\n  \"releases\": {\"v1.14.7\": {\"source\": \"notes\"}}\n}\n")

	out, err := catalog.SetChecked(data, time.Date(2026, 12, 9, 23, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}

	if want := strings.Replace(string(data), "2026-12-02", "2026-12-09", 1); string(out) != want {
		t.Errorf("SetChecked:\n%s\nwant\n%s", out, want)
	}

	if _, err := catalog.SetChecked([]byte(`{"checked": "2026-12-02", "minors": {}, "releases": {}}`), time.Now()); err == nil {
		t.Error("a file without its checked line on a line of its own was rewritten")
	}
}
