package catalog_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/talops/talops/internal/catalog"
)

// fakeFactory answers GET /version/{v}/extensions/official from stubs; it fails the test on a
// version it has no stub for and on stubs left unused.
type fakeFactory struct {
	t     *testing.T
	mu    sync.Mutex
	stubs map[string][]catalog.OfficialExtension
	calls []string
}

func newFakeFactory(t *testing.T, stubs map[string][]catalog.OfficialExtension) *fakeFactory {
	f := &fakeFactory{t: t, stubs: stubs}

	t.Cleanup(func() {
		for v := range f.stubs {
			if !slices.Contains(f.calls, v) {
				t.Errorf("stub for %s was never fetched", v)
			}
		}
	})

	return f
}

func (f *fakeFactory) fetch(_ context.Context, version string) ([]catalog.OfficialExtension, error) {
	f.mu.Lock()
	defer f.mu.Unlock()

	f.calls = append(f.calls, version)

	list, ok := f.stubs[version]
	if !ok {
		f.t.Errorf("unexpected fetch of %s", version)

		return nil, fmt.Errorf("no stub for %s", version)
	}

	return list, nil
}

func official(ref string) catalog.OfficialExtension {
	name, _, _ := catalog.ParseExtensionRef(ref)

	return catalog.OfficialExtension{
		Name:        catalog.SchematicName(name),
		Ref:         ref,
		Digest:      "sha256:0000000000000000000000000000000000000000000000000000000000000000",
		Author:      "Sidero Labs",
		Description: "[core] test",
	}
}

func TestUpdate_MergesNewReleasesAndEncodesThemInPlace(t *testing.T) {
	t.Parallel()

	base, err := catalog.Load([]byte(`{
  "talos": {
    "v1.13.8": {
      "nonfree-kmod-nvidia-lts": "580.173.02-v1.13.8"
    },
    "v1.14.0-rc.1": {
      "nonfree-kmod-nvidia-lts": "580.178.04-v1.14.0-rc.1"
    }
  }
}
`))
	if err != nil {
		t.Fatal(err)
	}

	before := string(base.Encode())

	factory := newFakeFactory(t, map[string][]catalog.OfficialExtension{
		"v1.14.0": {
			official("ghcr.io/siderolabs/nvidia-container-toolkit-lts:580.178.04-v1.19.1"),
			official("ghcr.io/siderolabs/nonfree-kmod-nvidia-lts:580.178.04-v1.14.0"),
		},
		"v1.13.9": {
			official("ghcr.io/siderolabs/nonfree-kmod-nvidia-lts:580.178.04-v1.13.9"),
		},
	})

	versions := []string{
		"v1.14.0",
		"v1.5.0",       // older than the data: not fetched
		"v1.13.8",      // present: not fetched
		"v1.14.0",      // listed twice: fetched once
		"latest",       // not a release tag
		"1.13.9",       // normalised to v1.13.9
		"v1.14.0-rc.1", // present
	}

	updated, added, err := catalog.Update(context.Background(), base, versions, factory.fetch)
	if err != nil {
		t.Fatalf("Update: %v", err)
	}

	if want := []string{"v1.13.9", "v1.14.0"}; !slices.Equal(added, want) {
		t.Errorf("added = %v, want %v", added, want)
	}

	if want := []string{"v1.13.9", "v1.14.0"}; !slices.Equal(factory.calls, want) {
		t.Errorf("fetched %v, want %v (version order, once each)", factory.calls, want)
	}

	want := `{
  "talos": {
    "v1.13.8": {
      "nonfree-kmod-nvidia-lts": "580.173.02-v1.13.8"
    },
    "v1.13.9": {
      "nonfree-kmod-nvidia-lts": "580.178.04-v1.13.9"
    },
    "v1.14.0-rc.1": {
      "nonfree-kmod-nvidia-lts": "580.178.04-v1.14.0-rc.1"
    },
    "v1.14.0": {
      "nonfree-kmod-nvidia-lts": "580.178.04-v1.14.0",
      "nvidia-container-toolkit-lts": "580.178.04-v1.19.1"
    }
  }
}
`
	if got := string(updated.Encode()); got != want {
		t.Errorf("Encode() =\n%s\nwant\n%s", got, want)
	}

	if got := string(base.Encode()); got != before {
		t.Error("Update changed the catalog it started from")
	}

	r, _ := updated.Release("v1.14.0")
	if driver, toolkit, ok := r.NvidiaDriver(catalog.FlavourLTS); !ok || driver != "580.178.04" || toolkit != "v1.19.1" {
		t.Errorf("v1.14.0 LTS = %s, %s, %v", driver, toolkit, ok)
	}
}

func TestUpdate_OnTheEmbeddedDataKeepsExistingBytes(t *testing.T) {
	t.Parallel()

	factory := newFakeFactory(t, map[string][]catalog.OfficialExtension{
		"v1.14.0": {official("ghcr.io/siderolabs/zfs:2.4.0-v1.14.0")},
	})

	updated, added, err := catalog.Update(context.Background(), catalog.Embedded(), []string{"v1.13.9", "v1.14.0"}, factory.fetch)
	if err != nil || !slices.Equal(added, []string{"v1.14.0"}) {
		t.Fatalf("Update = %v, %v", added, err)
	}

	old := string(catalog.EmbeddedJSON())
	got := string(updated.Encode())

	// The new release goes last, everything before it is the file as it was.
	prefix := strings.TrimSuffix(old, "\n    }\n  }\n}\n") + "\n    },\n"
	tail := "    \"v1.14.0\": {\n      \"zfs\": \"2.4.0-v1.14.0\"\n    }\n  }\n}\n"

	if got != prefix+tail {
		t.Errorf("Encode() after update does not extend the embedded file: tail %q", got[len(got)-200:])
	}

	if catalog.Embedded().Status("v1.14.0") != catalog.ReleaseNewerThanData {
		t.Error("Update changed the embedded catalog")
	}
}

func TestUpdate_FailsWithTheVersionThatFailed(t *testing.T) {
	t.Parallel()

	errFactory := errors.New("factory unavailable")
	fetch := func(_ context.Context, v string) ([]catalog.OfficialExtension, error) {
		return nil, errFactory
	}

	_, _, err := catalog.Update(context.Background(), catalog.Embedded(), []string{"v1.14.0"}, fetch)
	if !errors.Is(err, errFactory) || !strings.Contains(err.Error(), "v1.14.0") {
		t.Errorf("Update = %v, want the fetch error wrapped with the version", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	_, _, err = catalog.Update(ctx, catalog.Embedded(), []string{"v1.14.0"}, fetch)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Update with a cancelled context = %v", err)
	}
}

func TestReleaseFromFactory_RefusesInconsistentLists(t *testing.T) {
	t.Parallel()

	good := official("ghcr.io/siderolabs/zfs:2.4.0-v1.14.0")

	for name, list := range map[string][]catalog.OfficialExtension{
		"empty list":            nil,
		"ref without tag":       {{Name: "siderolabs/zfs", Ref: "ghcr.io/siderolabs/zfs"}},
		"schematic-style ref":   {{Name: "siderolabs/zfs", Ref: "siderolabs/zfs:2.4.0-v1.14.0"}},
		"third-party ref":       {{Name: "siderolabs/zfs", Ref: "ghcr.io/example/zfs:2.4.0"}},
		"name differs from ref": {{Name: "siderolabs/btrfs", Ref: good.Ref}},
		"two tags for a name":   {good, official("ghcr.io/siderolabs/zfs:2.4.1-v1.14.0")},
	} {
		if _, err := catalog.ReleaseFromFactory("v1.14.0", list); err == nil {
			t.Errorf("%s: ReleaseFromFactory accepted %+v", name, list)
		}
	}

	r, err := catalog.ReleaseFromFactory("v1.14.0", []catalog.OfficialExtension{good, good})
	if err != nil || r.Tag() != "v1.14.0" || len(r.Names()) != 1 {
		t.Errorf("a repeated identical entry: %+v, %v", r.Names(), err)
	}
}
