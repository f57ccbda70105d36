package cli_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/talops/talops/internal/factory/factorytest"
	"github.com/talops/talops/internal/testlab"
)

// A release newer than every one talops knows of its minor is named as such before the
// guess derived for it.
func TestValidate_AReleaseTalopsDoesNotKnowIsNamedBeforeItsGuess(t *testing.T) {
	t.Parallel()

	files := testlab.Files(t)
	testlab.SetVersions(t, files, "v1.14.8", "")
	h := newHarness(t, files, nil)

	if err := h.run("validate", "--offline", "--dir", "examples/homelab"); err != nil {
		t.Fatalf("validate: %v\n%s", err, h.stdout.String())
	}

	want := "info versions.release-data talosVersion: v1.14.8 is not a release this talops knows (newest known v1.14.7): Talos v1.14.8 is not in this build's extension data"
	if !strings.Contains(h.stdout.String(), want) {
		t.Errorf("output:\n%s\nwant a line with %q", h.stdout.String(), want)
	}
}

// A factory whose listing of v1.14.6 names an LTS driver its release notes do not (the
// facts read 580.196.07 from them) is not believed: a warning names both, the GPU node is
// held to the notes' driver, and the cached answer is held to them again offline.
func TestValidate_AFactoryContradictingTheVerifiedFactsIsNotBelieved(t *testing.T) {
	t.Parallel()

	files := testlab.Files(t)
	testlab.SetVersions(t, files, "v1.14.6", "")

	var listing []factorytest.Extension

	moved := strings.NewReplacer("v1.14.7", "v1.14.6", "580.196.07", "999.99.99")
	for _, e := range testlab.Listing114(t) {
		name, tag, _ := strings.Cut(strings.TrimPrefix(e.Ref, "ghcr.io/"), ":")
		listing = append(listing, factorytest.Ext(name, moved.Replace(tag)))
	}

	cache := t.TempDir()
	h := newHarness(t, files, nil)
	h.deps.ReleaseCache = cache
	fake := releaseFactory(t, h)
	fake.ExpectVersions("v1.14.6", "v1.14.7")
	fake.ExpectExtensions("v1.14.6", listing...)

	want := "the Image Factory https://factory.talos.dev lists the NVIDIA lts driver 999.99.99 for Talos v1.14.6, where the release notes give 580.196.07: talops uses 580.196.07, the verified one"

	check := func(h *harness, when string) {
		t.Helper()

		if err := h.run("validate", "--dir", "examples/homelab", "--format", "json", "--offline="+strconv.FormatBool(when == "offline")); err != nil {
			t.Fatalf("validate %s: %v\n%s", when, err, h.stdout.String())
		}

		var found bool
		for _, f := range findingsOf(t, h.stdout.Bytes()) {
			found = found || f.Code == "versions.factory-contradicts" && f.Severity == "warning" && f.Message == want
		}

		if !found || strings.Contains(h.stdout.String(), "nvidia.driver") {
			t.Errorf("%s: want the contradiction named and no driver finding:\n%s", when, h.stdout.String())
		}
	}

	check(h, "online")

	kept, ok := h.written[filepath.Join(cache, "releases.json")]
	if !ok || !strings.Contains(string(kept), "999.99.99-v1.14.6") {
		t.Fatalf("the factory's answer was not kept as it said it: %v\n%s", ok, kept)
	}

	if err := os.WriteFile(filepath.Join(cache, "releases.json"), kept, 0o600); err != nil {
		t.Fatal(err)
	}

	offline := newHarness(t, files, nil)
	offline.deps.ReleaseCache = cache
	releaseFactory(t, offline)
	check(offline, "offline")
}
