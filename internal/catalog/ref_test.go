package catalog_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/catalog"
)

const digest = "sha256:ada0ec2b7f0ba4a8f0cc6b0a1e7f2a0d8dc1e1b3e0ff0aa8d3f4b1e2c3d4e5f6"

func TestParseExtensionRef_AcceptsOfficialForms(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		in        string
		name, tag string
	}{
		{"ghcr.io/siderolabs/nonfree-kmod-nvidia-lts:580.178.04-v1.13.9", "nonfree-kmod-nvidia-lts", "580.178.04-v1.13.9"},
		{"ghcr.io/siderolabs/nvidia-container-toolkit:535.129.03-v1.14.6@" + digest, "nvidia-container-toolkit", "535.129.03-v1.14.6"},
		{"ghcr.io/siderolabs/zfs@" + digest, "zfs", ""},
		{"ghcr.io/siderolabs/zfs", "zfs", ""},
		{"siderolabs/nvidia-fabricmanager-lts", "nvidia-fabricmanager-lts", ""},
		{"siderolabs/bnx2-bnx2x", "bnx2-bnx2x", ""},
		{"iscsi-tools", "iscsi-tools", ""},
		{"util-linux-tools:2.41.4", "util-linux-tools", "2.41.4"},
	} {
		name, tag, ok := catalog.ParseExtensionRef(tc.in)
		if !ok || name != tc.name || tag != tc.tag {
			t.Errorf("ParseExtensionRef(%q) = %q, %q, %v; want %q, %q", tc.in, name, tag, ok, tc.name, tc.tag)
		}
	}
}

func TestParseExtensionRef_RefusesWhatIsNotOfficial(t *testing.T) {
	t.Parallel()

	for _, in := range []string{
		"",
		"ghcr.io/sulibot/frr-talos-extension:latest", // a third-party extension
		"docker.io/siderolabs/zfs:2.3.3",
		"ghcr.io/siderolabs/",
		"ghcr.io/siderolabs/zfs:",
		"ghcr.io/siderolabs/zfs:bad tag",
		"ghcr.io/siderolabs/zfs@sha256:short",
		"siderolabs/Zfs",
		"siderolabs/a/b",
		"factory.talos.dev/installer/376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba:v1.13.9",
		"ghcr.io:443/siderolabs/zfs",
	} {
		if name, tag, ok := catalog.ParseExtensionRef(in); ok {
			t.Errorf("ParseExtensionRef(%q) = %q, %q, true", in, name, tag)
		}
	}
}

func TestSchematicNameAndFormatRef_RoundTrip(t *testing.T) {
	t.Parallel()

	if got := catalog.SchematicName("nfs-utils"); got != "siderolabs/nfs-utils" {
		t.Errorf("SchematicName = %q", got)
	}

	ref := catalog.FormatRef("nfs-utils", "v0.1.1")
	if name, tag, ok := catalog.ParseExtensionRef(ref); !ok || name != "nfs-utils" || tag != "v0.1.1" {
		t.Errorf("ParseExtensionRef(FormatRef) = %q, %q, %v", name, tag, ok)
	}
}

func FuzzParseExtensionRef(f *testing.F) {
	for _, s := range []string{
		"ghcr.io/siderolabs/nonfree-kmod-nvidia-lts:580.178.04-v1.13.9",
		"ghcr.io/siderolabs/zfs@" + digest,
		"siderolabs/zfs",
		"zfs:2.3.3-v1.13.9@" + digest,
		"ghcr.io/siderolabs/:@",
		"@@::",
	} {
		f.Add(s)
	}

	f.Fuzz(func(t *testing.T, s string) {
		name, tag, ok := catalog.ParseExtensionRef(s)
		if !ok {
			if name != "" || tag != "" {
				t.Fatalf("ParseExtensionRef(%q) refused but returned %q, %q", s, name, tag)
			}

			return
		}

		if name == "" || strings.ContainsAny(name, "/:@") || strings.ContainsAny(tag, "/:@") {
			t.Fatalf("ParseExtensionRef(%q) = %q, %q", s, name, tag)
		}

		// What comes out rebuilds into a reference that parses to the same parts.
		rebuilt := catalog.SchematicName(name)
		if tag != "" {
			rebuilt = catalog.FormatRef(name, tag)
		}

		if n2, t2, ok2 := catalog.ParseExtensionRef(rebuilt); !ok2 || n2 != name || t2 != tag {
			t.Fatalf("rebuilt %q parses to %q, %q, %v", rebuilt, n2, t2, ok2)
		}
	})
}
