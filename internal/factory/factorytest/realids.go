package factorytest

// The IDs the real Image Factory gives these schematics. The fake answers a registration
// from this table, never by computing an ID with talops' own code, so that a test of an ID
// fails when talops computes it wrong. TestRealIDs_MatchTheSchematicTestdata holds the
// table to internal/schematic/testdata.

// RealID is a schematic and the ID the real factory gave it.
type RealID struct {
	// Name says where it comes from: "vectors/11-qemu-guest-agent.yaml".
	Name string
	// YAML is the schematic as its source wrote it.
	YAML string
	ID   string
}

// RealIDs are the schematics whose real factory IDs are known.
var RealIDs = []RealID{
	{Name: "vectors/01-empty.yaml", ID: "376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba", YAML: `{}
`},
	{Name: "vectors/02-noapic-nolapic.yaml", ID: "9cba8e32753f91a16c1837ab8abf356af021706ef284aef07380780177d9a06c", YAML: `customization:
  extraKernelArgs:
    - noapic
    - nolapic
`},
	{Name: "vectors/03-meta.yaml", ID: "d308a2a5ee2277bed5fbaa104fcbc8d59122abfa737df987a95b4ca763459a7f", YAML: `customization:
  meta:
    - key: 10
      value: foo
`},
	{Name: "vectors/04-secureboot-wellknown.yaml", ID: "fa8e05f142a851d3ee568eb0a8e5841eaf6b0ebc8df9a63df16ac5ed2c04f3e6", YAML: `customization:
  secureboot:
    includeWellKnownCertificates: true
`},
	{Name: "vectors/05-4k-sector.yaml", ID: "92833e9ddd9bb9e11b2464fa5525429f01866306d52ebd882ee08d7918f6d1ea", YAML: `customization:
  diskImage:
    sectorSize: 4096
`},
	{Name: "vectors/06-rpi-overlay.yaml", ID: "ee21ef4a5ef808a9b7484cc0dda0f25075021691c8c09a276591eedb638ea1f9", YAML: `overlay:
  name: rpi_generic
  image: siderolabs/sbc-raspberrypi
`},
	{Name: "vectors/11-qemu-guest-agent.yaml", ID: "ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515", YAML: `customization:
  systemExtensions:
    officialExtensions:
      - siderolabs/qemu-guest-agent
`},
	{Name: "vectors/14-nvidia-production-sorted.yaml", ID: "a8651af064e616002d2bf1853faede32d2fd7cc9b05598e490b9d74f0318a08c", YAML: `customization:
    systemExtensions:
        officialExtensions:
            - siderolabs/binfmt-misc
            - siderolabs/crun
            - siderolabs/iscsi-tools
            - siderolabs/nonfree-kmod-nvidia-production
            - siderolabs/nvidia-container-toolkit-production
            - siderolabs/util-linux-tools
            - siderolabs/vmtoolsd-guest-agent
`},
	{Name: "vectors/15-nvidia-production-UNSORTED-negative.yaml", ID: "012fbab7e4d01e5ab68860ef7fd8307d0979488d8fdf6e09b669063b32ddeba9", YAML: `customization:
    systemExtensions:
        officialExtensions:
            - siderolabs/binfmt-misc
            - siderolabs/crun
            - siderolabs/iscsi-tools
            - siderolabs/nvidia-container-toolkit-production
            - siderolabs/util-linux-tools
            - siderolabs/vmtoolsd-guest-agent
            - siderolabs/nonfree-kmod-nvidia-production
`},
	{Name: "published/dgx-spark-nonfree.yaml", ID: "bc668cd34c1b046652bf89b476b33178418e343d51d4e2e3e0b5335d4e40e7ad", YAML: `# DGX Spark (GB10, arm64) - REQUIRED profile.
# Talos documents that Grace Blackwell (GB10) arm64 needs the proprietary
# NVIDIA driver; the open-modules image stalls the kernel during boot on
# this hardware (verified on spark-0, 2026-09-25).
# Proprietary 580 LTS kmod + container toolkit.
# Schematic ID: bc668cd34c1b046652bf89b476b33178418e343d51d4e2e3e0b5335d4e40e7ad
customization:
  extraKernelArgs:
    - arm64.nobti
  systemExtensions:
    officialExtensions:
      - siderolabs/nonfree-kmod-nvidia-lts
      - siderolabs/nvidia-container-toolkit-lts
`},
	{Name: "published/almothana12-talos-extensions.yaml", ID: "da47cde9af5de5969d56bb68e6777ee02b9fc16401f0d4a7de5a4f734891712b", YAML: `customization:
    systemExtensions:
        officialExtensions:
            - siderolabs/i915
            - siderolabs/iscsi-tools
            - siderolabs/mei
            - siderolabs/util-linux-tools
            # Your image schematic ID is: da47cde9af5de5969d56bb68e6777ee02b9fc16401f0d4a7de5a4f734891712b
            # ISO: https://factory.talos.dev/image/da47cde9af5de5969d56bb68e6777ee02b9fc16401f0d4a7de5a4f734891712b/v1.13.7/metal-amd64.iso
            # Image: factory.talos.dev/metal-installer/da47cde9af5de5969d56bb68e6777ee02b9fc16401f0d4a7de5a4f734891712b:v1.13.7`},
	// The reference lab's base schematic (nfs-utils, qemu-guest-agent): public
	// repositories name this ID for the same two extensions ("guest_agent nfs_tools"),
	// as factory.talos.dev gave it.
	{Name: "examples/homelab/schematics/base.yaml", ID: "3abf06e1d81e509d779dc256f9feae6cd6d82c69337c661cbfc383a92594faf5", YAML: `customization:
  systemExtensions:
    officialExtensions:
      - siderolabs/nfs-utils
      - siderolabs/qemu-guest-agent
`},
}
