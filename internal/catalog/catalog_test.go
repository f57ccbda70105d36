package catalog_test

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/talops/talops/internal/catalog"
)

func TestEmbedded_ListsEveryReleaseTagInVersionOrder(t *testing.T) {
	t.Parallel()

	got := catalog.Embedded().Releases()

	// 68 final releases v1.6.0 … v1.13.9 and 53 prereleases up to v1.14.0-rc.1.
	if len(got) != 121 {
		t.Errorf("len(Releases()) = %d, want 121", len(got))
	}

	for _, want := range [][2]string{
		{"v1.6.0-alpha.0", "v1.6.0-alpha.1"},
		{"v1.6.0-beta.1", "v1.6.0"},
		{"v1.12.0-rc.1", "v1.12.0"},
		{"v1.6.8", "v1.7.0-alpha.0"},
		{"v1.9.6", "v1.10.0-alpha.0"},
		{"v1.12.10", "v1.12.11"},
		{"v1.13.9", "v1.14.0-alpha.0"},
	} {
		i := slices.Index(got, want[0])
		if i < 0 || i+1 >= len(got) || got[i+1] != want[1] {
			t.Errorf("release after %s is not %s", want[0], want[1])
		}
	}

	if got[0] != "v1.6.0-alpha.0" || got[len(got)-1] != "v1.14.0-rc.1" {
		t.Errorf("Releases() spans %s … %s, want v1.6.0-alpha.0 … v1.14.0-rc.1", got[0], got[len(got)-1])
	}

	finals := 0

	for _, tag := range got {
		if catalog.Embedded().Status(tag) != catalog.ReleaseInData {
			t.Errorf("Status(%s) is not in-data", tag)
		}

		if !strings.Contains(tag, "-") {
			finals++
		}
	}

	if finals != 68 {
		t.Errorf("%d final releases, want 68", finals)
	}
}

func TestEmbedded_IsParsedOnceAndShared(t *testing.T) {
	t.Parallel()

	var wg sync.WaitGroup

	got := make([]*catalog.Catalog, 8)
	for i := range got {
		wg.Go(func() { got[i] = catalog.Embedded() })
	}

	wg.Wait()

	for _, c := range got {
		if c != got[0] {
			t.Fatal("Embedded() returned different catalogs")
		}
	}
}

func TestEncode_ReproducesTheEmbeddedFileByteForByte(t *testing.T) {
	t.Parallel()

	want := catalog.EmbeddedJSON()

	if got := catalog.Embedded().Encode(); !bytes.Equal(got, want) {
		t.Fatalf("Encode() differs from data/extensions.json (%d vs %d bytes)", len(got), len(want))
	}

	reloaded, err := catalog.Load(want)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}

	if got := reloaded.Encode(); !bytes.Equal(got, want) {
		t.Fatal("Load → Encode differs from the input")
	}
}

func TestEncode_SortsExtensionsAndReleasesWhateverTheInputOrder(t *testing.T) {
	t.Parallel()

	c, err := catalog.Load([]byte(`{"talos":{"v1.10.0":{"zfs":"2.3.1-v1.10.0","amd-ucode":"20250311"},"v1.9.0":{},"v1.10.0-rc.0":{"btrfs":"v1.10.0-rc.0"}}}`))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}

	want := `{
  "talos": {
    "v1.9.0": {},
    "v1.10.0-rc.0": {
      "btrfs": "v1.10.0-rc.0"
    },
    "v1.10.0": {
      "amd-ucode": "20250311",
      "zfs": "2.3.1-v1.10.0"
    }
  }
}
`
	if got := string(c.Encode()); got != want {
		t.Errorf("Encode() =\n%s\nwant\n%s", got, want)
	}

	empty, err := catalog.Load([]byte(`{"talos":{}}`))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}

	if got := string(empty.Encode()); got != "{\n  \"talos\": {}\n}\n" {
		t.Errorf("empty Encode() = %q", got)
	}
}

func TestLoad_RejectsMalformedData(t *testing.T) {
	t.Parallel()

	for name, data := range map[string]string{
		"not JSON":                `talos:`,
		"no talos object":         `{}`,
		"unknown top-level field": `{"talos":{},"meta":{}}`,
		"trailing data":           `{"talos":{}} {}`,
		"release key not a tag":   `{"talos":{"1.13.9":{}}}`,
		"release key malformed":   `{"talos":{"v1.13":{}}}`,
		"name with namespace":     `{"talos":{"v1.13.9":{"siderolabs/zfs":"2.3.3-v1.13.9"}}}`,
		"empty tag":               `{"talos":{"v1.13.9":{"zfs":""}}}`,
		"tag with space":          `{"talos":{"v1.13.9":{"zfs":"2.3 v1"}}}`,
		"tag not a string":        `{"talos":{"v1.13.9":{"zfs":2}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()

			if _, err := catalog.Load([]byte(data)); err == nil {
				t.Errorf("Load(%s) succeeded", data)
			}
		})
	}
}

func TestStatus_SaysWhenTheDataIsMissingARelease(t *testing.T) {
	t.Parallel()

	c := catalog.Embedded()

	for _, tc := range []struct {
		version string
		want    catalog.ReleaseStatus
	}{
		{"v1.13.9", catalog.ReleaseInData},
		{"1.13.9", catalog.ReleaseInData},
		{"v1.14.0-rc.1", catalog.ReleaseInData},
		{"v1.14.0", catalog.ReleaseNewerThanData},   // final after the last rc in the data
		{"v1.14.2", catalog.ReleaseNewerThanData},   // later patch of a minor the data only has prereleases of
		{"v1.13.10", catalog.ReleaseNewerThanData},  // older minors keep getting patches
		{"v1.15.0", catalog.ReleaseNewerThanData},   // a minor the data does not reach
		{"v2.0.0", catalog.ReleaseNewerThanData},    // likewise
		{"v1.14.0-rc.0", catalog.ReleaseUnknown},    // never tagged
		{"v1.15.0-alpha.0", catalog.ReleaseUnknown}, // prereleases are not vouched for
		{"v1.12.5-rc.0", catalog.ReleaseUnknown},
		{"v1.5.0", catalog.ReleaseUnknown}, // older than the data
		{"v1.13", catalog.ReleaseUnknown},  // not a release tag
		{"latest", catalog.ReleaseUnknown},
		{"", catalog.ReleaseUnknown},
	} {
		if got := c.Status(tc.version); got != tc.want {
			t.Errorf("Status(%q) = %v, want %v", tc.version, got, tc.want)
		}
	}
}

func TestNormalizeTag_AddsTheVPrefixAndRefusesPartialVersions(t *testing.T) {
	t.Parallel()

	for in, want := range map[string]string{"1.13.9": "v1.13.9", "v1.14.0-rc.1": "v1.14.0-rc.1"} {
		if got, err := catalog.NormalizeTag(in); err != nil || got != want {
			t.Errorf("NormalizeTag(%q) = %q, %v; want %q", in, got, err, want)
		}
	}

	for _, in := range []string{"1.13", "vv1.13.9", "v1.13.9+build", "v01.13.9"} {
		var ve *catalog.VersionError
		if got, err := catalog.NormalizeTag(in); !errors.As(err, &ve) {
			t.Errorf("NormalizeTag(%q) = %q, %v; want *VersionError", in, got, err)
		}
	}
}

// The release to step through is the newest the build knows of the minor, in the extension
// data or the release facts: 1.13's extension data stops at v1.13.9, its facts at v1.13.13.
func TestNewestKnownPatch_IsTheNewestOfTheDataAndTheFacts(t *testing.T) {
	t.Parallel()

	c := catalog.Embedded()

	for minor, want := range map[string]string{
		"1.6":  "v1.6.8",
		"1.11": "v1.11.6",
		"1.12": "v1.12.11",
		"1.13": "v1.13.13",
		"1.14": "v1.14.7",
	} {
		if got, ok := c.NewestKnownPatch(minor, catalog.EmbeddedFacts()); !ok || got != want {
			t.Errorf("NewestKnownPatch(%s) = %s, %v; want %s", minor, got, ok, want)
		}
	}

	for _, minor := range []string{"1.5", "x"} {
		if got, ok := c.NewestKnownPatch(minor, catalog.EmbeddedFacts()); ok {
			t.Errorf("NewestKnownPatch(%s) = %s, want none", minor, got)
		}
	}
}

func TestLatest_IsTheNewestFinalReleaseOfTheData(t *testing.T) {
	t.Parallel()

	if r, ok := catalog.Embedded().Latest(); !ok || r.Tag() != "v1.13.9" {
		t.Errorf("Latest() = %s, %v; want v1.13.9", r.Tag(), ok)
	}
}

func TestRelease_AcceptsBareSchematicAndImageNames(t *testing.T) {
	t.Parallel()

	r, ok := catalog.Embedded().Release("v1.13.9")
	if !ok {
		t.Fatal("v1.13.9 missing")
	}

	for _, name := range []string{
		"nonfree-kmod-nvidia-lts",
		"siderolabs/nonfree-kmod-nvidia-lts",
		"ghcr.io/siderolabs/nonfree-kmod-nvidia-lts:580.178.04-v1.13.9",
		"ghcr.io/siderolabs/nonfree-kmod-nvidia-lts:0.0.0-v0.0.0", // the lookup ignores the ref's tag
	} {
		if tag, ok := r.ImageTag(name); !ok || tag != "580.178.04-v1.13.9" {
			t.Errorf("ImageTag(%s) = %q, %v", name, tag, ok)
		}
	}

	if ref, ok := r.Ref("siderolabs/nvidia-container-toolkit-lts"); !ok || ref != "ghcr.io/siderolabs/nvidia-container-toolkit-lts:580.178.04-v1.19.1" {
		t.Errorf("Ref = %q, %v", ref, ok)
	}

	for _, name := range []string{"nonfree-kmod-nvidia", "docker.io/siderolabs/zfs", "Zfs", ""} {
		if r.Has(name) {
			t.Errorf("Has(%q) = true", name)
		}
	}

	exts := r.Extensions()
	exts["zfs"] = "changed"

	if tag, _ := r.ImageTag("zfs"); tag == "changed" {
		t.Error("Extensions() exposes the release's map")
	}

	if names := r.Names(); !slices.IsSorted(names) || len(names) != len(exts) {
		t.Errorf("Names() = %v", names)
	}
}

func TestRelease_NfsUtilsOnlyFrom1_12(t *testing.T) {
	t.Parallel()

	c := catalog.Embedded()

	for talos, want := range map[string]bool{
		"v1.11.6":        false,
		"v1.12.0-beta.0": true,
		"v1.12.0":        true,
		"v1.13.9":        true,
	} {
		r, _ := c.Release(talos)
		if got := r.Has("siderolabs/nfs-utils"); got != want {
			t.Errorf("%s Has(nfs-utils) = %v, want %v", talos, got, want)
		}
	}

	// Its companions came earlier: nfsd at 1.10, nfsrahead at 1.11.
	for talos, names := range map[string][]string{
		"v1.9.6":  {},
		"v1.10.0": {"nfsd"},
		"v1.11.0": {"nfsd", "nfsrahead"},
	} {
		r, _ := c.Release(talos)
		for _, n := range []string{"nfsd", "nfsrahead"} {
			if r.Has(n) != slices.Contains(names, n) {
				t.Errorf("%s Has(%s) = %v", talos, n, r.Has(n))
			}
		}
	}
}

// TestRelease_PublicRefsThatDoNotExist replays the negative evidence of the data notes: refs
// found in public repositories whose tags were never published.
func TestRelease_PublicRefsThatDoNotExist(t *testing.T) {
	t.Parallel()

	c := catalog.Embedded()

	for _, tc := range []struct {
		talos, ref string
		real       string // the published tag; "" when the name does not exist on the release
	}{
		{"v1.7.6", "ghcr.io/siderolabs/nonfree-kmod-nvidia:535.154.05-v1.7.6", "535.129.03-v1.7.6"},
		{"v1.9.0", "ghcr.io/siderolabs/nonfree-kmod-nvidia:535.129.03-v1.9.0", ""},
		{"v1.9.2", "ghcr.io/siderolabs/nonfree-kmod-nvidia:535.183.06-v1.9.2", ""},
		{"v1.11.0", "ghcr.io/siderolabs/nonfree-kmod-nvidia-production:550.127.05-v1.11.0", "570.172.08-v1.11.0"},
		{"v1.13.3", "ghcr.io/siderolabs/nonfree-kmod-nvidia-production:535.247.01-v1.13.3", "595.71.05-v1.13.3"},
		{"v1.13.3", "ghcr.io/siderolabs/nvidia-container-toolkit-production:535.247.01-v1.17.8", "595.71.05-v1.19.0"},
		{"v1.10.3", "ghcr.io/siderolabs/nonfree-kmod-nvidia-production:535.247.01-v1.10.3", "570.133.20-v1.10.3"},
		{"v1.10.3", "ghcr.io/siderolabs/nvidia-container-toolkit-production:570.133.20-v1.17.6", "570.133.20-v1.17.6"},
	} {
		r, ok := c.Release(tc.talos)
		if !ok {
			t.Fatalf("%s missing", tc.talos)
		}

		name, tag, _ := catalog.ParseExtensionRef(tc.ref)
		real, ok := r.ImageTag(name)

		if real != tc.real || ok != (tc.real != "") {
			t.Errorf("%s %s: published tag %q, %v; want %q", tc.talos, name, real, ok, tc.real)
		}

		if ok && real == tag && tc.real != tag {
			t.Errorf("%s: %s should not be published", tc.talos, tc.ref)
		}
	}
}

func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"talos":{"v1.13.9":{"zfs":"2.3.3-v1.13.9"},"v1.9.0":{}}}`))
	f.Add([]byte(`{"talos":{}}`))
	f.Add([]byte(`{"talos":{"v1.13.9":{"":""}}}`))

	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := catalog.Load(data)
		if err != nil {
			return
		}

		// Whatever loads encodes to a fixed point.
		first := c.Encode()

		again, err := catalog.Load(first)
		if err != nil {
			t.Fatalf("Load(Encode()) failed: %v\n%s", err, first)
		}

		if second := again.Encode(); !bytes.Equal(first, second) {
			t.Fatalf("encoding is not stable:\n%s\n%s", first, second)
		}
	})
}

func TestBeyondKnown_NamesAReleaseNewerThanEveryOneOfItsMinor(t *testing.T) {
	t.Parallel()

	c := catalog.Embedded()

	for _, tc := range []struct {
		tag, newest string
		beyond      bool
	}{
		{tag: "v1.14.8", newest: "v1.14.7", beyond: true},
		{tag: "v1.14.7", newest: "v1.14.7"},
		{tag: "v1.13.10", newest: "v1.13.13"},
		{tag: "v1.99.0", beyond: true},
		{tag: "v1.15.0-beta.9"},
	} {
		if newest, beyond := c.BeyondKnown(tc.tag, catalog.EmbeddedFacts()); newest != tc.newest || beyond != tc.beyond {
			t.Errorf("BeyondKnown(%s) = %q, %v; want %q, %v", tc.tag, newest, beyond, tc.newest, tc.beyond)
		}
	}
}
