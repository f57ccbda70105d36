package catalog_test

import (
	"testing"

	"github.com/talops/talops/internal/catalog"
)

func TestParseNvidia_KnowsEveryPublishedName(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		in   string
		want catalog.NvidiaExt
	}{
		{"nonfree-kmod-nvidia", catalog.NvidiaExt{Name: "nonfree-kmod-nvidia", Kind: catalog.KernelModuleProprietary}},
		{"siderolabs/nonfree-kmod-nvidia-lts", catalog.NvidiaExt{Name: "nonfree-kmod-nvidia-lts", Kind: catalog.KernelModuleProprietary, Flavour: catalog.FlavourLTS}},
		{"ghcr.io/siderolabs/nvidia-open-gpu-kernel-modules-production:595.71.05-v1.13.3", catalog.NvidiaExt{Name: "nvidia-open-gpu-kernel-modules-production", Kind: catalog.KernelModuleOpen, Flavour: catalog.FlavourProduction}},
		{"nvidia-container-toolkit-lts", catalog.NvidiaExt{Name: "nvidia-container-toolkit-lts", Kind: catalog.ContainerToolkit, Flavour: catalog.FlavourLTS}},
		{"nvidia-fabricmanager-production", catalog.NvidiaExt{Name: "nvidia-fabricmanager-production", Kind: catalog.FabricManager, Flavour: catalog.FlavourProduction}},
		{"nvidia-gdrdrv-device", catalog.NvidiaExt{Name: "nvidia-gdrdrv-device", Kind: catalog.GDRCopy}},
		// The new-feature track of Talos 1.15.
		{"siderolabs/nvidia-open-gpu-kernel-modules-new-feature", catalog.NvidiaExt{Name: "nvidia-open-gpu-kernel-modules-new-feature", Kind: catalog.KernelModuleOpen, Flavour: catalog.FlavourNewFeature}},
		{"nvidia-container-toolkit-new-feature", catalog.NvidiaExt{Name: "nvidia-container-toolkit-new-feature", Kind: catalog.ContainerToolkit, Flavour: catalog.FlavourNewFeature}},
		{"nvidia-fabricmanager-new-feature", catalog.NvidiaExt{Name: "nvidia-fabricmanager-new-feature", Kind: catalog.FabricManager, Flavour: catalog.FlavourNewFeature}},
		// Never published (the track is open only), but recognised so the rules can say so.
		{"nonfree-kmod-nvidia-new-feature", catalog.NvidiaExt{Name: "nonfree-kmod-nvidia-new-feature", Kind: catalog.KernelModuleProprietary, Flavour: catalog.FlavourNewFeature}},
	} {
		got, ok := catalog.ParseNvidia(tc.in)
		if !ok || got != tc.want {
			t.Errorf("ParseNvidia(%q) = %+v, %v; want %+v", tc.in, got, ok, tc.want)
		}

		if name := got.Kind.ExtensionName(got.Flavour); name != got.Name {
			t.Errorf("%v.ExtensionName(%q) = %q, want %q", got.Kind, got.Flavour, name, got.Name)
		}
	}

	for _, in := range []string{
		"nvidia-fabric-manager-lts", // the factory's typo, never published
		"nvidia-gdrdrv-device-lts",
		"nonfree-kmod-nvidia-beta",
		"nvidia-container-toolkit-lts-production",
		"nvidia-container-toolkitnew-feature",
		"nvidia-gdrdrv-device-new-feature",
		"zfs",
		"",
	} {
		if got, ok := catalog.ParseNvidia(in); ok {
			t.Errorf("ParseNvidia(%q) = %+v, want not NVIDIA", in, got)
		}
	}
}

func TestParseNvidiaTag_SplitsEachKindsTagShape(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		kind           catalog.NvidiaKind
		tag            string
		driver, suffix string
	}{
		{catalog.KernelModuleProprietary, "535.129.03-v1.7.5", "535.129.03", "v1.7.5"},
		{catalog.KernelModuleOpen, "580.178.04-v1.14.0-rc.1", "580.178.04", "v1.14.0-rc.1"},
		{catalog.KernelModuleProprietary, "535.54.03-v1.6.0-alpha.0", "535.54.03", "v1.6.0-alpha.0"},
		// The toolkit's suffix is the toolkit's own version, not the Talos tag.
		{catalog.ContainerToolkit, "535.230.02-v1.17.3", "535.230.02", "v1.17.3"},
		{catalog.FabricManager, "535.230.02", "535.230.02", ""},
		{catalog.GDRCopy, "v2.5.1", "", "v2.5.1"},
		// From Talos 1.15 the toolkit extension is tagged with the bare driver version.
		{catalog.ContainerToolkit, "620.70.06", "620.70.06", ""},
		{catalog.KernelModuleOpen, "615.71.10-v1.15.0-beta.1", "615.71.10", "v1.15.0-beta.1"},
	} {
		driver, suffix, ok := catalog.ParseNvidiaTag(tc.kind, tc.tag)
		if !ok || driver != tc.driver || suffix != tc.suffix {
			t.Errorf("ParseNvidiaTag(%v, %q) = %q, %q, %v; want %q, %q", tc.kind, tc.tag, driver, suffix, ok, tc.driver, tc.suffix)
		}
	}

	for _, tc := range []struct {
		kind catalog.NvidiaKind
		tag  string
	}{
		{catalog.KernelModuleProprietary, "535.129.03"},
		{catalog.KernelModuleProprietary, "535.129.03-1.7.5"}, // Talos tags start with v
		{catalog.KernelModuleProprietary, "535.129.03-v1.7"},
		{catalog.KernelModuleOpen, "latest"},
		{catalog.ContainerToolkit, "v1.17.3"},
		{catalog.ContainerToolkit, "620.70.06-1.19.1"},
		{catalog.FabricManager, "535.230.02-v1.9.5"},
		{catalog.GDRCopy, "2.5.1"},
		{catalog.NvidiaKind(0), "535.230.02"},
	} {
		if driver, suffix, ok := catalog.ParseNvidiaTag(tc.kind, tc.tag); ok {
			t.Errorf("ParseNvidiaTag(%v, %q) = %q, %q, true", tc.kind, tc.tag, driver, suffix)
		}
	}
}

// TestNvidiaTags_EveryReleaseFollowsTheTagRules checks, over every release in the data, the
// rules a checker relies on: kernel module tags end in exactly the release tag, and all
// extensions of one flavour carry the same driver.
func TestNvidiaTags_EveryReleaseFollowsTheTagRules(t *testing.T) {
	t.Parallel()

	c := catalog.Embedded()

	for _, tag := range c.Releases() {
		r, _ := c.Release(tag)
		drivers := map[catalog.Flavour]string{}

		for name, imageTag := range r.Extensions() {
			ext, ok := catalog.ParseNvidia(name)
			if !ok || ext.Kind == catalog.GDRCopy {
				continue
			}

			driver, suffix, ok := catalog.ParseNvidiaTag(ext.Kind, imageTag)
			if !ok {
				t.Errorf("%s: %s tag %q does not parse", tag, name, imageTag)

				continue
			}

			if ext.Kind.KernelModule() && suffix != tag {
				t.Errorf("%s: %s tag %q does not end in the release tag", tag, name, imageTag)
			}

			if prev, seen := drivers[ext.Flavour]; seen && prev != driver {
				t.Errorf("%s: %s has driver %s, another %q extension has %s", tag, name, driver, ext.Flavour, prev)
			}

			drivers[ext.Flavour] = driver
		}

		if len(drivers) == 0 {
			t.Errorf("%s: no NVIDIA extensions", tag)
		}
	}
}

func TestNvidiaDriver_BareNamesGoneFrom1_8(t *testing.T) {
	t.Parallel()

	c := catalog.Embedded()

	for _, tc := range []struct {
		talos            string
		bare, lts, split bool
	}{
		{"v1.7.7", true, false, false},
		{"v1.8.0-alpha.1", true, false, false},
		{"v1.8.0-alpha.2", false, true, true}, // the split commit's first tag
		{"v1.8.0", false, true, true},
		{"v1.13.9", false, true, true},
	} {
		r, _ := c.Release(tc.talos)

		_, _, bare := r.NvidiaDriver(catalog.FlavourNone)
		_, _, lts := r.NvidiaDriver(catalog.FlavourLTS)
		_, _, production := r.NvidiaDriver(catalog.FlavourProduction)

		if bare != tc.bare || lts != tc.lts || production != tc.split {
			t.Errorf("%s: bare %v, lts %v, production %v; want %v, %v, %v", tc.talos, bare, lts, production, tc.bare, tc.lts, tc.split)
		}

		for _, kind := range []catalog.NvidiaKind{catalog.KernelModuleProprietary, catalog.KernelModuleOpen, catalog.ContainerToolkit, catalog.FabricManager} {
			if r.Has(kind.ExtensionName(catalog.FlavourNone)) != tc.bare {
				t.Errorf("%s: Has(%s) = %v", tc.talos, kind.ExtensionName(catalog.FlavourNone), !tc.bare)
			}
		}
	}
}

func TestNvidiaDriver_LTSSwitchesTo580At1_12(t *testing.T) {
	t.Parallel()

	c := catalog.Embedded()

	for talos, want := range map[string]string{
		"v1.8.0":  "535",
		"v1.11.6": "535",
		"v1.12.0": "580",
		"v1.13.9": "580",
	} {
		r, _ := c.Release(talos)
		driver, _, _ := r.NvidiaDriver(catalog.FlavourLTS)

		if branch, _ := catalog.DriverBranch(driver); branch != want {
			t.Errorf("%s LTS driver %s is on branch %q, want %s", talos, driver, branch, want)
		}
	}

	// At 1.12 the LTS branch is newer than production.
	r, _ := c.Release("v1.12.0")
	lts, _, _ := r.NvidiaDriver(catalog.FlavourLTS)
	production, _, _ := r.NvidiaDriver(catalog.FlavourProduction)

	if lts != "580.105.08" || production != "570.195.03" {
		t.Errorf("v1.12.0 lts %s production %s; want 580.105.08 and 570.195.03", lts, production)
	}
}

func TestNvidiaDriver_ProductionBranches550Then570Then595(t *testing.T) {
	t.Parallel()

	c := catalog.Embedded()

	for talos, want := range map[string]string{
		"v1.8.0":   "550",
		"v1.9.6":   "550",
		"v1.10.0":  "570",
		"v1.12.11": "570",
		"v1.13.0":  "595",
		"v1.13.9":  "595",
	} {
		r, _ := c.Release(talos)
		driver, _, _ := r.NvidiaDriver(catalog.FlavourProduction)

		if branch, _ := catalog.DriverBranch(driver); branch != want {
			t.Errorf("%s production driver %s is on branch %q, want %s", talos, driver, branch, want)
		}
	}
}

func TestNvidiaDriver_TalosBumpCanChangeTheDriverSilently(t *testing.T) {
	t.Parallel()

	c := catalog.Embedded()
	before, _ := c.Release("v1.13.2")
	after, _ := c.Release("v1.13.3")

	d1, tk1, _ := before.NvidiaDriver(catalog.FlavourLTS)
	d2, tk2, _ := after.NvidiaDriver(catalog.FlavourLTS)

	if d1 != "580.159.03" || d2 != "580.159.04" || tk1 != "v1.19.0" || tk2 != "v1.19.0" {
		t.Errorf("v1.13.2 → v1.13.3 LTS: %s/%s → %s/%s", d1, tk1, d2, tk2)
	}
}

func TestDriverBranch(t *testing.T) {
	t.Parallel()

	for in, want := range map[string]string{"580.65.06": "580", "535.129.03": "535", "390.157": "390"} {
		if got, ok := catalog.DriverBranch(in); !ok || got != want {
			t.Errorf("DriverBranch(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}

	for _, in := range []string{"580", "v580.65.06", "580.65.06-v1.13.9", ""} {
		if got, ok := catalog.DriverBranch(in); ok {
			t.Errorf("DriverBranch(%q) = %q, want refused", in, got)
		}
	}
}

func TestDriverMatchesPin_BranchOrExact(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		driver, pin string
		want        bool
	}{
		{"580.178.04", "580", true},
		{"580.178.04", "580.178", true},
		{"580.178.04", "580.178.04", true},
		{"580.178.04", "580.178.4", false}, // tags are compared as written
		{"580.173.02", "580.178.04", false},
		{"595.71.05", "580", false},
		{"58.1.1", "580", false},
		{"580.178.04", "", false},
		{"580.178.04", "580.x", false},
		{"580.178.04", "580.178.04.1", false},
		{"latest", "580", false},
	} {
		if got := catalog.DriverMatchesPin(tc.driver, tc.pin); got != tc.want {
			t.Errorf("DriverMatchesPin(%q, %q) = %v, want %v", tc.driver, tc.pin, got, tc.want)
		}
	}
}

func FuzzParseNvidiaTag(f *testing.F) {
	for _, s := range []string{"535.129.03-v1.7.5", "580.178.04-v1.14.0-rc.1", "535.230.02-v1.17.3", "535.230.02", "v2.5.1", "-", "1.-v"} {
		for kind := range 6 {
			f.Add(kind, s)
		}
	}

	f.Fuzz(func(t *testing.T, kind int, tag string) {
		k := catalog.NvidiaKind(kind)

		driver, suffix, ok := catalog.ParseNvidiaTag(k, tag)
		if !ok {
			if driver != "" || suffix != "" {
				t.Fatalf("ParseNvidiaTag(%v, %q) refused but returned %q, %q", k, tag, driver, suffix)
			}

			return
		}

		// The parts are the tag, cut at one dash.
		rebuilt := driver + "-" + suffix

		switch {
		case driver == "":
			rebuilt = suffix
		case suffix == "":
			rebuilt = driver
		}

		if rebuilt != tag {
			t.Fatalf("ParseNvidiaTag(%v, %q) = %q, %q", k, tag, driver, suffix)
		}

		if driver != "" {
			if _, ok := catalog.DriverBranch(driver); !ok {
				t.Fatalf("driver %q of %q has no branch", driver, tag)
			}

			if !catalog.DriverMatchesPin(driver, driver) {
				t.Fatalf("driver %q does not match itself", driver)
			}
		}
	})
}
