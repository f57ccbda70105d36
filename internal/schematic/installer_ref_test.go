package schematic_test

import (
	"errors"
	"testing"

	"github.com/talops/talops/internal/schematic"
)

func TestParseInstallerImage_TakesReferencesApart(t *testing.T) {
	for _, tc := range []struct {
		name, ref string
		want      schematic.InstallerRef
	}{
		{
			name: "public factory, platform installer",
			ref:  "factory.talos.dev/nocloud-installer/" + homelabID + ":v1.13.9",
			want: schematic.InstallerRef{Registry: "factory.talos.dev", Repository: "nocloud-installer", ID: homelabID, Tag: "v1.13.9"},
		},
		{
			name: "secureboot flavour pinned by digest",
			ref:  "factory.talos.dev/metal-installer-secureboot/" + homelabID + ":v1.14.0@sha256:0123",
			want: schematic.InstallerRef{Registry: "factory.talos.dev", Repository: "metal-installer-secureboot", ID: homelabID, Tag: "v1.14.0", Digest: "sha256:0123"},
		},
		{
			name: "self-hosted factory with a port",
			ref:  "tif.example.org:8443/installer/" + homelabID + ":v1.13.7",
			want: schematic.InstallerRef{Registry: "tif.example.org:8443", Repository: "installer", ID: homelabID, Tag: "v1.13.7"},
		},
		{
			name: "the stock installer on ghcr.io has no schematic",
			ref:  "ghcr.io/siderolabs/installer:v1.13.9",
			want: schematic.InstallerRef{Registry: "ghcr.io", Repository: "siderolabs/installer", Tag: "v1.13.9"},
		},
		{
			name: "a short ID is a repository, not a schematic",
			ref:  "factory.talos.dev/installer/abc123:v1.13.9",
			want: schematic.InstallerRef{Registry: "factory.talos.dev", Repository: "installer/abc123", Tag: "v1.13.9"},
		},
		{
			name: "no registry, no tag",
			ref:  "siderolabs/installer",
			want: schematic.InstallerRef{Repository: "siderolabs/installer"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := schematic.ParseInstallerImage(tc.ref)
			if err != nil {
				t.Fatal(err)
			}

			if got != tc.want {
				t.Errorf("ParseInstallerImage = %+v, want %+v", got, tc.want)
			}

			if got.String() != tc.ref {
				t.Errorf("String() = %s, want the input back", got.String())
			}
		})
	}
}

func TestParseInstallerImage_RefusesWhatIsNoReference(t *testing.T) {
	for _, ref := range []string{"", "factory.talos.dev//x:v1", "ghcr.io/siderolabs/installer:", "a b", "ghcr.io/x@"} {
		if _, err := schematic.ParseInstallerImage(ref); !errors.Is(err, schematic.ErrNotImageRef) {
			t.Errorf("ParseInstallerImage(%q) error = %v, want ErrNotImageRef", ref, err)
		}
	}
}

func TestParseInstallerImage_ReadsBackWhatInstallerImageWrites(t *testing.T) {
	ref := schematic.InstallerImage("https://factory.talos.dev", "nocloud", homelabID, "1.14.1", true)

	got, err := schematic.ParseInstallerImage(ref)
	if err != nil {
		t.Fatal(err)
	}

	want := schematic.InstallerRef{Registry: "factory.talos.dev", Repository: "nocloud-installer-secureboot", ID: homelabID, Tag: "v1.14.1"}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// FuzzParseInstallerImage checks that parsing never panics and loses nothing:
// what parses prints back to the input and parses again to the same parts.
func FuzzParseInstallerImage(f *testing.F) {
	for _, seed := range []string{
		"factory.talos.dev/nocloud-installer/" + homelabID + ":v1.13.9",
		"factory.talos.dev/installer-secureboot/" + homelabID + ":v1.13.9@sha256:00",
		"ghcr.io/siderolabs/installer:v1.14.0",
		"localhost:5000/metal-installer/" + homelabID,
		"a:b:c", "x@y@z", "/", ":", "@",
	} {
		f.Add(seed)
	}

	f.Fuzz(func(t *testing.T, ref string) {
		r, err := schematic.ParseInstallerImage(ref)
		if err != nil {
			return
		}

		if r.String() != ref {
			t.Fatalf("String() = %q, want %q (%+v)", r.String(), ref, r)
		}

		again, err := schematic.ParseInstallerImage(r.String())
		if err != nil || again != r {
			t.Fatalf("reparse of %q = %+v, %v; want %+v", ref, again, err, r)
		}
	})
}
