package schematic_test

import (
	"testing"

	"github.com/talops/talops/internal/schematic"
)

const homelabID = "ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515"

func TestInstallerImage(t *testing.T) {
	for _, tc := range []struct {
		name, factory, platform, version string
		secureBoot                       bool
		want                             string
	}{
		{
			name: "public factory, nocloud", factory: "https://factory.talos.dev", platform: "nocloud", version: "v1.13.9",
			want: "factory.talos.dev/nocloud-installer/" + homelabID + ":v1.13.9",
		},
		{
			name: "trailing slash", factory: "https://factory.talos.dev/", platform: "metal", version: "v1.14.0",
			want: "factory.talos.dev/metal-installer/" + homelabID + ":v1.14.0",
		},
		{
			name: "secureboot", factory: "https://factory.talos.dev", platform: "nocloud", version: "v1.13.9", secureBoot: true,
			want: "factory.talos.dev/nocloud-installer-secureboot/" + homelabID + ":v1.13.9",
		},
		{
			name: "custom factory with port, no scheme", factory: "tif.example.org:8443", platform: "metal", version: "v1.13.7",
			want: "tif.example.org:8443/metal-installer/" + homelabID + ":v1.13.7",
		},
		{
			name: "version without v", factory: schematic.DefaultFactory, platform: "nocloud", version: "1.13.9",
			want: "factory.talos.dev/nocloud-installer/" + homelabID + ":v1.13.9",
		},
		{
			name: "no platform: the installer repository of Talos up to 1.13", factory: schematic.DefaultFactory, version: "v1.12.6",
			want: "factory.talos.dev/installer/" + homelabID + ":v1.12.6",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := schematic.InstallerImage(tc.factory, tc.platform, homelabID, tc.version, tc.secureBoot); got != tc.want {
				t.Errorf("InstallerImage = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestBootImageURL(t *testing.T) {
	for _, tc := range []struct {
		factory, version, file, want string
	}{
		{"https://factory.talos.dev", "v1.13.9", "nocloud-amd64.iso", "https://factory.talos.dev/image/" + homelabID + "/v1.13.9/nocloud-amd64.iso"},
		{"https://factory.talos.dev//", "1.13.9", "metal-amd64.raw.zst", "https://factory.talos.dev/image/" + homelabID + "/v1.13.9/metal-amd64.raw.zst"},
		{"factory.example.org", "v1.14.0", "metal-arm64.iso", "https://factory.example.org/image/" + homelabID + "/v1.14.0/metal-arm64.iso"},
		{"http://127.0.0.1:8080/", "v1.14.0", "metal-amd64.iso", "http://127.0.0.1:8080/image/" + homelabID + "/v1.14.0/metal-amd64.iso"},
	} {
		if got := schematic.BootImageURL(tc.factory, homelabID, tc.version, tc.file); got != tc.want {
			t.Errorf("BootImageURL(%q, %q, %q) = %s, want %s", tc.factory, tc.version, tc.file, got, tc.want)
		}
	}
}

func TestBootImageFiles_FactoryNamesPerPlatform(t *testing.T) {
	for _, tc := range []struct {
		platform, arch string
		secureBoot     bool
		iso, disk      string
	}{
		// The lab: Proxmox VMs boot the nocloud ISO.
		{"nocloud", "amd64", false, "nocloud-amd64.iso", "nocloud-amd64.raw.xz"},
		{"nocloud", "arm64", false, "nocloud-arm64.iso", "nocloud-arm64.raw.xz"},
		{"nocloud", "amd64", true, "nocloud-amd64-secureboot.iso", "nocloud-amd64-secureboot.raw.xz"},
		// metal disk images are zstd since Talos 1.8.
		{"metal", "amd64", false, "metal-amd64.iso", "metal-amd64.raw.zst"},
		{"metal", "arm64", true, "metal-arm64-secureboot.iso", "metal-arm64-secureboot.raw.zst"},
		// Cloud images only.
		{"aws", "amd64", false, "", "aws-amd64.raw.xz"},
		{"gcp", "arm64", false, "", "gcp-arm64.raw.tar.gz"},
		{"azure", "amd64", true, "", "azure-amd64-secureboot.vhd.xz"},
		{"oracle", "amd64", false, "", "oracle-amd64.qcow2"},
		{"vmware", "amd64", false, "vmware-amd64.iso", "vmware-amd64.ova"},
		// ISO only, or PXE only.
		{"vultr", "amd64", false, "vultr-amd64.iso", ""},
		{"equinixMetal", "amd64", false, "", ""},
		// Not offered.
		{"aws", "amd64", true, "", ""},
		{"hcloud", "arm64", false, "", ""},
		{"nocloud", "riscv64", false, "", ""},
		{"proxmox", "amd64", false, "", ""},
	} {
		iso, disk := schematic.BootImageFiles(tc.platform, tc.arch, tc.secureBoot)
		if iso != tc.iso || disk != tc.disk {
			t.Errorf("BootImageFiles(%s, %s, secureboot=%v) = %q, %q; want %q, %q",
				tc.platform, tc.arch, tc.secureBoot, iso, disk, tc.iso, tc.disk)
		}
	}
}

func TestKnownPlatform(t *testing.T) {
	for p, want := range map[string]bool{"metal": true, "nocloud": true, "alibabacloud": true, "proxmox": false, "": false} {
		if got := schematic.KnownPlatform(p); got != want {
			t.Errorf("KnownPlatform(%q) = %v, want %v", p, got, want)
		}
	}
}
