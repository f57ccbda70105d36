package catalog_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/catalog"
)

func TestRename_FactoryAliasesApplyOnlyWhereTheNameIsGone(t *testing.T) {
	t.Parallel()

	c := catalog.Embedded()

	for _, tc := range []struct {
		name, talos string
		want        catalog.Alias
	}{
		// Bare NVIDIA names: the factory silently picks the LTS track from 1.8 on.
		{"siderolabs/nonfree-kmod-nvidia", "v1.8.0", catalog.Alias{Talos: "v1.8.0", From: "nonfree-kmod-nvidia", To: "nonfree-kmod-nvidia-lts", Use: "nonfree-kmod-nvidia-lts", Kind: catalog.AliasFactory}},
		{"nvidia-container-toolkit", "v1.13.9", catalog.Alias{Talos: "v1.13.9", From: "nvidia-container-toolkit", To: "nvidia-container-toolkit-lts", Use: "nvidia-container-toolkit-lts", Kind: catalog.AliasFactory}},
		{"nvidia-open-gpu-kernel-modules", "1.12.0", catalog.Alias{Talos: "v1.12.0", From: "nvidia-open-gpu-kernel-modules", To: "nvidia-open-gpu-kernel-modules-lts", Use: "nvidia-open-gpu-kernel-modules-lts", Kind: catalog.AliasFactory}},
		// Other renames.
		{"siderolabs/i915-ucode", "v1.9.0", catalog.Alias{Talos: "v1.9.0", From: "i915-ucode", To: "i915", Use: "i915", Kind: catalog.AliasFactory}},
		{"amdgpu-firmware", "v1.13.9", catalog.Alias{Talos: "v1.13.9", From: "amdgpu-firmware", To: "amdgpu", Use: "amdgpu", Kind: catalog.AliasFactory}},
		{"xe-guest-utilities", "v1.7.0", catalog.Alias{Talos: "v1.7.0", From: "xe-guest-utilities", To: "xen-guest-agent", Use: "xen-guest-agent", Kind: catalog.AliasFactory}},
		// Names that were wrong in extension manifests.
		{"siderolabs/v4l-uvc", "v1.10.0", catalog.Alias{Talos: "v1.10.0", From: "v4l-uvc", To: "v4l-uvc-drivers", Use: "v4l-uvc-drivers", Kind: catalog.AliasFactory}},
		{"usb-modem", "v1.10.0", catalog.Alias{Talos: "v1.10.0", From: "usb-modem", To: "usb-modem-drivers", Use: "usb-modem-drivers", Kind: catalog.AliasFactory}},
		{"gasket", "v1.10.0", catalog.Alias{Talos: "v1.10.0", From: "gasket", To: "gasket-driver", Use: "gasket-driver", Kind: catalog.AliasFactory}},
		{"talos-vmtoolsd", "v1.10.0", catalog.Alias{Talos: "v1.10.0", From: "talos-vmtoolsd", To: "vmtoolsd-guest-agent", Use: "vmtoolsd-guest-agent", Kind: catalog.AliasFactory}},
		// A final release newer than the data is judged by the newest release before it.
		{"nonfree-kmod-nvidia", "v1.14.0", catalog.Alias{Talos: "v1.14.0", From: "nonfree-kmod-nvidia", To: "nonfree-kmod-nvidia-lts", Use: "nonfree-kmod-nvidia-lts", Kind: catalog.AliasFactory}},
	} {
		got, ok := c.Rename(tc.name, tc.talos)
		if !ok || got != tc.want {
			t.Errorf("Rename(%s, %s) = %+v, %v; want %+v", tc.name, tc.talos, got, ok, tc.want)
		}
	}
}

func TestRename_FabricManagerAliasPointsAtANameThatDoesNotExist(t *testing.T) {
	t.Parallel()

	got, ok := catalog.Embedded().Rename("siderolabs/nvidia-fabricmanager", "v1.12.4")
	want := catalog.Alias{
		Talos: "v1.12.4",
		From:  "nvidia-fabricmanager",
		To:    "nvidia-fabric-manager-lts",
		Use:   "nvidia-fabricmanager-lts",
		Kind:  catalog.AliasFactoryBroken,
	}

	if !ok || got != want {
		t.Fatalf("Rename = %+v, %v; want %+v", got, ok, want)
	}

	r, _ := catalog.Embedded().Release("v1.12.4")
	if r.Has(got.To) || !r.Has(got.Use) {
		t.Errorf("expected %s missing and %s published", got.To, got.Use)
	}

	why := got.Why()
	for _, part := range []string{"nvidia-fabric-manager-lts", "does not exist", "use nvidia-fabricmanager-lts"} {
		if !strings.Contains(why, part) {
			t.Errorf("Why() = %q, lacks %q", why, part)
		}
	}
}

func TestRename_LTSAndProductionNamesBefore1_8MeanTheBareName(t *testing.T) {
	t.Parallel()

	c := catalog.Embedded()

	for _, tc := range []struct {
		name, talos, use string
	}{
		{"siderolabs/nonfree-kmod-nvidia-lts", "v1.7.7", "nonfree-kmod-nvidia"},
		{"nvidia-container-toolkit-production", "v1.6.0", "nvidia-container-toolkit"},
		{"nvidia-fabricmanager-lts", "v1.8.0-alpha.1", "nvidia-fabricmanager"},
		{"nvidia-open-gpu-kernel-modules-lts", "v1.7.0", "nvidia-open-gpu-kernel-modules"},
	} {
		got, ok := c.Rename(tc.name, tc.talos)
		if !ok || got.Kind != catalog.AliasBeforeSplit || got.Use != tc.use || got.To != "" {
			t.Errorf("Rename(%s, %s) = %+v, %v; want before-split to %s", tc.name, tc.talos, got, ok, tc.use)
		}
	}
}

func TestRename_NothingToSayWhenPublishedUnknownOrUnmapped(t *testing.T) {
	t.Parallel()

	c := catalog.Embedded()

	for _, tc := range []struct{ name, talos string }{
		{"nonfree-kmod-nvidia", "v1.7.7"},       // still published
		{"nonfree-kmod-nvidia-lts", "v1.8.0"},   // published
		{"i915-ucode", "v1.8.4"},                // published until 1.9's alphas
		{"nfs-utils", "v1.11.6"},                // missing, but no alias: the caller reports it
		{"nvidia-gdrdrv-device", "v1.11.0"},     // likewise
		{"nonfree-kmod-nvidia", "v1.5.0"},       // older than the data
		{"nonfree-kmod-nvidia", "v1.14.0-rc.0"}, // a prerelease the data lacks
		{"nonfree-kmod-nvidia", "latest"},       // not a version
		{"ghcr.io/other/nonfree-kmod-nvidia", "v1.13.9"},
	} {
		if got, ok := c.Rename(tc.name, tc.talos); ok {
			t.Errorf("Rename(%s, %s) = %+v, want nothing", tc.name, tc.talos, got)
		}
	}
}

func TestAlias_WhyNamesTheTrackTheFactoryPicks(t *testing.T) {
	t.Parallel()

	got, _ := catalog.Embedded().Rename("nonfree-kmod-nvidia", "v1.12.0")
	want := "nonfree-kmod-nvidia is not published for Talos v1.12.0; the Image Factory substitutes nonfree-kmod-nvidia-lts (the LTS driver track); name the -lts or -production extension explicitly"

	if got.Why() != want {
		t.Errorf("Why() = %q\nwant   %q", got.Why(), want)
	}

	before, _ := catalog.Embedded().Rename("nonfree-kmod-nvidia-production", "v1.7.7")
	want = "nonfree-kmod-nvidia-production does not exist before the NVIDIA lts/production split in Talos 1.8; on v1.7.7 use nonfree-kmod-nvidia"

	if before.Why() != want {
		t.Errorf("Why() = %q\nwant   %q", before.Why(), want)
	}
}
