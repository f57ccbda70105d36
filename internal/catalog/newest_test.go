package catalog

import (
	"errors"
	"testing"
)

func TestNewestKnownStable_SkipsPrereleasesOfDataAndFacts(t *testing.T) {
	c, err := Load([]byte(`{"talos": {"v1.12.4": {}, "v1.13.9": {}, "v1.14.0-beta.1": {}}}`))
	if err != nil {
		t.Fatal(err)
	}

	none, err := LoadFacts([]byte(`{"checked": "2026-12-02", "minors": {}, "releases": {}}`))
	if err != nil {
		t.Fatal(err)
	}

	if got, ok := c.NewestKnownStable(none); !ok || got != "v1.13.9" {
		t.Errorf("NewestKnownStable without facts = %q, %v; want v1.13.9", got, ok)
	}

	facts, err := LoadFacts([]byte(`{"checked": "2026-12-02", "minors": {}, "releases": {
		"v1.14.7": {"source": "notes"}, "v1.15.0-beta.1": {"source": "notes"}}}`))
	if err != nil {
		t.Fatal(err)
	}

	if got, ok := c.NewestKnownStable(facts); !ok || got != "v1.14.7" {
		t.Errorf("NewestKnownStable with facts = %q, %v; want v1.14.7", got, ok)
	}
}

func TestNewestStable_EmbeddedIsV1147WithItsKubernetes(t *testing.T) {
	got, err := Embedded().NewestStable()
	if err != nil || got != "v1.14.7" {
		t.Fatalf("NewestStable = %q, %v; want v1.14.7", got, err)
	}

	if _, ok := Embedded().Derive(got, EmbeddedFacts()); !ok {
		t.Errorf("newest stable %s cannot be derived from the data", got)
	}

	k, err := NewestKubernetes(got)
	if err != nil || k != "v1.37.1" {
		t.Fatalf("NewestKubernetes(%s) = %q, %v; want v1.37.1", got, k, err)
	}

	if err := CheckKubernetes(got, k); err != nil {
		t.Errorf("Kubernetes %s for Talos %s: %v", k, got, err)
	}
}

func TestNewestKubernetes_IsTheReleaseDefaultElseTheNewestSupportedMinor(t *testing.T) {
	for _, tc := range []struct{ talos, want string }{
		{"v1.13.9", "v1.36.0"},
		{"v1.14.1", "v1.37.0"},
		{"v1.14.4", "v1.37.1"},
		{"v1.12.0", "v1.35.0"},
	} {
		got, err := NewestKubernetes(tc.talos)
		if err != nil || got != tc.want {
			t.Errorf("NewestKubernetes(%s) = %q, %v; want %s", tc.talos, got, err, tc.want)
		}
	}

	var ue *UnknownTalosError
	if _, err := NewestKubernetes("v9.0.0"); !errors.As(err, &ue) {
		t.Errorf("NewestKubernetes(v9.0.0): %v, want *UnknownTalosError", err)
	}
}
