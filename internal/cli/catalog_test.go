package cli_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/talops/talops/internal/catalog"
	"github.com/talops/talops/internal/factory/factorytest"
)

func TestCatalogUpdate_AddsTheReleasesTheFactoryListsAndTheDataLacks(t *testing.T) {
	t.Parallel()

	h := newHarness(t, nil, nil)

	file := filepath.Join(t.TempDir(), "extensions.json")
	if err := os.WriteFile(file, catalog.EmbeddedJSON(), 0o644); err != nil {
		t.Fatal(err)
	}

	var written []byte

	h.deps.WriteFile = func(name string, data []byte, perm os.FileMode) error {
		if name != file || perm != 0o644 {
			t.Errorf("wrote %s with mode %o", name, perm)
		}

		written = data

		return nil
	}

	fake := releaseFactory(t, h)
	// v1.5.0 is older than the data and v1.13.9 already in it: neither is fetched.
	fake.ExpectVersions("v1.5.0", "v1.13.9", "v1.14.99", "v1.14.98")
	fake.ExpectExtensions("v1.14.98",
		factorytest.Ext("siderolabs/nvidia-open-gpu-kernel-modules-lts", "580.178.04-v1.14.98"),
		factorytest.Ext("siderolabs/nvidia-container-toolkit-lts", "580.178.04-v1.19.1"),
	)
	fake.ExpectExtensions("v1.14.99",
		factorytest.Ext("siderolabs/nvidia-open-gpu-kernel-modules-lts", "580.178.04-v1.14.99"),
		factorytest.Ext("siderolabs/nvidia-container-toolkit-lts", "580.178.04-v1.19.1"),
	)

	if err := h.run("catalog", "update", "--file", file); err != nil {
		t.Fatalf("catalog update: %v\n%s", err, h.stderr.String())
	}

	total := len(catalog.Embedded().Releases()) + 2
	if want := "added v1.14.98, v1.14.99 to " + file + " (" + strconv.Itoa(total) + " releases)\n"; h.stdout.String() != want {
		t.Errorf("stdout = %q, want %q", h.stdout.String(), want)
	}

	c, err := catalog.Load(written)
	if err != nil {
		t.Fatalf("the written file does not load: %v", err)
	}

	r, ok := c.Release("v1.14.99")
	if driver, _, _ := r.NvidiaDriver(catalog.FlavourLTS); !ok || driver != "580.178.04" {
		t.Errorf("v1.14.99 = %+v", r)
	}

	old := catalog.Embedded()
	if !slices.Equal(c.Releases()[:len(old.Releases())], old.Releases()) {
		t.Errorf("the releases already in the data changed")
	}
}

func TestCatalogUpdate_UpToDateWritesNothing(t *testing.T) {
	t.Parallel()

	h := newHarness(t, nil, nil)
	h.deps.WriteFile = func(name string, _ []byte, _ os.FileMode) error {
		t.Errorf("wrote %s", name)

		return nil
	}

	releaseFactory(t, h).ExpectVersions("v1.13.8", "v1.13.9")

	// A file that does not exist yet starts from the embedded data.
	file := filepath.Join(t.TempDir(), "extensions.json")
	if err := h.run("catalog", "update", "--file", file); err != nil {
		t.Fatal(err)
	}

	if want := file + " is up to date (" + strconv.Itoa(len(catalog.Embedded().Releases())) + " releases)\n"; h.stdout.String() != want {
		t.Errorf("stdout = %q, want %q", h.stdout.String(), want)
	}
}

func TestCatalog_UnknownSubcommand(t *testing.T) {
	t.Parallel()

	h := newHarness(t, nil, nil)

	if err := h.run("catalog", "refresh"); err == nil {
		t.Fatal("no error")
	}

	if h.stderr.String() != "talops: unknown catalog command \"refresh\" (known: update)\n" {
		t.Errorf("stderr = %q", h.stderr.String())
	}
}

func TestCatalogUpdate_KeepsPreReleasesOfTheComingReleaseAndSkipsThoseAlreadyReleased(t *testing.T) {
	t.Parallel()

	h := newHarness(t, nil, nil)
	h.deps.WriteFile = func(string, []byte, os.FileMode) error { return nil }

	fake := releaseFactory(t, h)
	// v1.14.0 is out: its rcs the data lacks are not fetched (beta.1 is in the data already); v1.15.0 is not, its alpha is.
	fake.ExpectVersions("v1.13.9", "v1.14.0-beta.1", "v1.14.0-rc.0", "v1.14.0-rc.2", "v1.14.0", "v1.15.0-alpha.0")
	fake.ExpectExtensions("v1.14.0",
		factorytest.Ext("siderolabs/nvidia-open-gpu-kernel-modules-lts", "580.178.04-v1.14.0"),
		factorytest.Ext("siderolabs/nvidia-container-toolkit-lts", "580.178.04-v1.19.1"),
	)
	fake.ExpectExtensions("v1.15.0-alpha.0",
		factorytest.Ext("siderolabs/nvidia-open-gpu-kernel-modules-lts", "580.178.04-v1.15.0-alpha.0"),
		factorytest.Ext("siderolabs/nvidia-container-toolkit-lts", "580.178.04-v1.19.1"),
	)

	file := filepath.Join(t.TempDir(), "extensions.json")
	if err := h.run("catalog", "update", "--file", file); err != nil {
		t.Fatalf("catalog update: %v\n%s", err, h.stderr.String())
	}

	total := len(catalog.Embedded().Releases()) + 2
	want := "added v1.14.0, v1.15.0-alpha.0 (pre-release: kept until its release is out) to " + file + " (" + strconv.Itoa(total) + " releases)\n" +
		"skipped v1.14.0-rc.0, v1.14.0-rc.2: pre-releases of a version that is released\n"
	if h.stdout.String() != want {
		t.Errorf("stdout = %q, want %q", h.stdout.String(), want)
	}
}
