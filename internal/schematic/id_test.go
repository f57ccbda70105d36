package schematic_test

import (
	"testing"

	"github.com/talops/talops/internal/schematic"
)

func mustID(t *testing.T, src string) string {
	t.Helper()

	s, err := schematic.Load([]byte(src))
	if err != nil {
		t.Fatalf("Load(%q): %v", src, err)
	}

	id, err := s.ID()
	if err != nil {
		t.Fatalf("ID: %v", err)
	}

	return id
}

const qemuGuestAgentID = "ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515"

func TestID_IgnoresCommentsKeyOrderStyleAndIndentation(t *testing.T) {
	const nvidiaSortedID = "a8651af064e616002d2bf1853faede32d2fd7cc9b05598e490b9d74f0318a08c"

	for _, tc := range []struct {
		name, src, want string
	}{
		{
			name: "comments everywhere",
			src: `# guest agent for Proxmox
customization: # the only section
  systemExtensions:
    # official ones only
    officialExtensions:
      - siderolabs/qemu-guest-agent # needed for shutdown
`,
			want: qemuGuestAgentID,
		},
		{
			name: "flow style",
			src:  `{"customization": {"systemExtensions": {"officialExtensions": ["siderolabs/qemu-guest-agent"]}}}`,
			want: qemuGuestAgentID,
		},
		{
			name: "two-space indent, compact list, explicit document start",
			src:  "---\ncustomization:\n  systemExtensions:\n    officialExtensions:\n    - siderolabs/qemu-guest-agent\n",
			want: qemuGuestAgentID,
		},
		{
			name: "quoted scalars",
			src:  "customization:\n  systemExtensions:\n    officialExtensions:\n      - 'siderolabs/qemu-guest-agent'\n",
			want: qemuGuestAgentID,
		},
		{
			name: "empty sections and empty lists are omitted",
			src:  "customization:\n  extraKernelArgs: []\n  meta: []\n  secureboot: {}\n  diskImage: {}\n  systemExtensions:\n    officialExtensions: [siderolabs/qemu-guest-agent]\noverlay: {}\n",
			want: qemuGuestAgentID,
		},
		{
			name: "key order: overlay after customization, name before image",
			src:  "customization: {}\noverlay:\n  name: rpi_generic\n  image: siderolabs/sbc-raspberrypi\n",
			want: "ee21ef4a5ef808a9b7484cc0dda0f25075021691c8c09a276591eedb638ea1f9",
		},
		{
			name: "key order: meta before extraKernelArgs",
			src:  "customization:\n  meta: []\n  extraKernelArgs: [noapic, nolapic]\n",
			want: "9cba8e32753f91a16c1837ab8abf356af021706ef284aef07380780177d9a06c",
		},
		{
			name: "META key in hex",
			src:  "customization:\n  meta:\n    - {key: 0xa, value: foo}\n",
			want: "d308a2a5ee2277bed5fbaa104fcbc8d59122abfa737df987a95b4ca763459a7f",
		},
		{
			name: "bootloader none is the zero value",
			src:  "customization:\n  bootloader: none\n",
			want: schematic.VanillaID,
		},
		{
			name: "null document",
			src:  "~\n",
			want: schematic.VanillaID,
		},
		{
			name: "anchor on the list",
			src:  "customization:\n  systemExtensions:\n    officialExtensions: &exts\n      - siderolabs/qemu-guest-agent\n",
			want: qemuGuestAgentID,
		},
		{
			name: "sorted NVIDIA list in flow style",
			src: `customization: {systemExtensions: {officialExtensions: [siderolabs/binfmt-misc, siderolabs/crun,
  siderolabs/iscsi-tools, siderolabs/nonfree-kmod-nvidia-production,
  siderolabs/nvidia-container-toolkit-production, siderolabs/util-linux-tools,
  siderolabs/vmtoolsd-guest-agent]}}`,
			want: nvidiaSortedID,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mustID(t, tc.src); got != tc.want {
				t.Errorf("ID = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestID_DependsOnListOrder(t *testing.T) {
	ab := mustID(t, "customization:\n  systemExtensions:\n    officialExtensions: [siderolabs/iscsi-tools, siderolabs/util-linux-tools]\n")
	ba := mustID(t, "customization:\n  systemExtensions:\n    officialExtensions: [siderolabs/util-linux-tools, siderolabs/iscsi-tools]\n")

	if ab == ba {
		t.Errorf("swapping two extensions kept ID %s; the factory gives two IDs", ab)
	}

	args1 := mustID(t, "customization: {extraKernelArgs: [noapic, nolapic]}")
	args2 := mustID(t, "customization: {extraKernelArgs: [nolapic, noapic]}")

	if args1 == args2 {
		t.Errorf("swapping kernel args kept ID %s", args1)
	}
}

func TestID_EmptySchematicIsVanilla(t *testing.T) {
	var s schematic.Schematic

	id, err := s.ID()
	if err != nil {
		t.Fatal(err)
	}

	if id != schematic.VanillaID {
		t.Errorf("ID of the zero schematic = %s, want %s", id, schematic.VanillaID)
	}

	out, _ := s.Marshal()
	if string(out) != "customization: {}\n" {
		t.Errorf("Marshal of the zero schematic = %q, want %q", out, "customization: {}\n")
	}
}

func TestMarshal_FieldsInFactoryOrderWithFourSpaceIndent(t *testing.T) {
	src := `customization:
  diskImage: {sectorSize: 4096}
  secureboot: {includeWellKnownCertificates: true, enrollKeys: force}
  bootloader: SD-Boot
  systemExtensions: {officialExtensions: [siderolabs/gvisor]}
  meta: [{value: foo, key: 10}]
  extraKernelArgs: [console=ttyS0]
  embeddedMachineConfiguration: "version: v1alpha1\n"
overlay: {options: {b: 2, a: 1}, name: rpi_generic, image: siderolabs/sbc-raspberrypi}
`
	want := `overlay:
    image: siderolabs/sbc-raspberrypi
    name: rpi_generic
    options:
        a: 1
        b: 2
customization:
    embeddedMachineConfiguration: |
        version: v1alpha1
    extraKernelArgs:
        - console=ttyS0
    meta:
        - key: 10
          value: foo
    systemExtensions:
        officialExtensions:
            - siderolabs/gvisor
    bootloader: sd-boot
    secureboot:
        enrollKeys: force
        includeWellKnownCertificates: true
    diskImage:
        sectorSize: 4096
`

	s, err := schematic.Load([]byte(src))
	if err != nil {
		t.Fatal(err)
	}

	got, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}

	if string(got) != want {
		t.Errorf("Marshal =\n%s\nwant\n%s", got, want)
	}
}

func TestMarshal_UnknownBootloaderValueIsAnError(t *testing.T) {
	s := schematic.Schematic{Customization: schematic.Customization{Bootloader: 42}}

	if _, err := s.ID(); err == nil {
		t.Error("ID of a schematic with bootloader 42 succeeded; want an error")
	}
}
