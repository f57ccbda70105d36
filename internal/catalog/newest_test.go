package catalog

import (
	"errors"
	"testing"
)

func TestNewestStable_SkipsPrereleases(t *testing.T) {
	c, err := Load([]byte(`{"talos": {"v1.12.4": {}, "v1.13.9": {}, "v1.14.0-beta.1": {}}}`))
	if err != nil {
		t.Fatal(err)
	}

	got, err := c.NewestStable()
	if err != nil || got != "v1.13.9" {
		t.Errorf("NewestStable = %q, %v; want v1.13.9", got, err)
	}
}

func TestNewestStable_EmbeddedIsAFinalReleaseMachineryCovers(t *testing.T) {
	got, err := Embedded().NewestStable()
	if err != nil {
		t.Fatal(err)
	}

	if Embedded().Status(got) != ReleaseInData {
		t.Errorf("newest stable %s is not a known release", got)
	}

	k, err := NewestKubernetes(got)
	if err != nil {
		t.Fatalf("NewestKubernetes(%s): %v", got, err)
	}

	if err := CheckKubernetes(got, k); err != nil {
		t.Errorf("Kubernetes %s for Talos %s: %v", k, got, err)
	}
}

func TestNewestKubernetes_IsTheNewestSupportedMinor(t *testing.T) {
	for _, tc := range []struct{ talos, want string }{
		{"v1.13.9", "v1.36.0"},
		{"v1.14.1", "v1.37.0"},
		{"v1.12.0", "v1.35.0"},
	} {
		got, err := NewestKubernetes(tc.talos)
		if err != nil || got != tc.want {
			t.Errorf("NewestKubernetes(%s) = %q, %v; want %s", tc.talos, got, err, tc.want)
		}

		if err := CheckKubernetes(tc.talos, "v"+got[1:len(got)-2]+".12"); err != nil {
			t.Errorf("a later patch of %s is refused: %v", got, err)
		}
	}

	var ue *UnknownTalosError
	if _, err := NewestKubernetes("v9.0.0"); !errors.As(err, &ue) {
		t.Errorf("NewestKubernetes(v9.0.0): %v, want *UnknownTalosError", err)
	}
}

func TestNewestStable_NoFinalRelease(t *testing.T) {
	c, err := Load([]byte(`{"talos": {"v1.14.0-beta.1": {}}}`))
	if err != nil {
		t.Fatal(err)
	}

	if _, err := c.NewestStable(); err == nil {
		t.Error("NewestStable of prereleases only: no error")
	}
}
