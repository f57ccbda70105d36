package cluster

import (
	"regexp"
	"strconv"
	"sync"
)

// The formats PVE's API takes for the VM fields (pve-qm's JSON schema: the qemu config
// and its net, hostpci and tag formats).
var (
	// bridgeRe is a Linux interface name, as PVE's pve-bridge-id is.
	bridgeRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9_.-]{0,14}$`) })
	// macRe is a unicast MAC address (PVE refuses multicast ones).
	macRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9A-Fa-f][02468aceACE](:[0-9A-Fa-f]{2}){5}$`) })
	// hostPCIRe is a PCI address, [domain:]bus:device[.function], or a mapping's name; at
	// most maxHostPCI characters (checked apart, see nameRe).
	hostPCIRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(([0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(\.[0-7])?|[a-zA-Z][a-zA-Z0-9_-]*)$`)
	})
	// cpuRe is a CPU model name (host, x86-64-v2-AES, a custom one); at most maxCPU.
	cpuRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_.+-]*$`) })
	// machineRe is a QEMU machine type: q35, pc, or a versioned pc-q35-9.0.
	machineRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(q35|pc|pc-(q35|i440fx)-[0-9]+\.[0-9]+(\+pve[0-9]+)?)$`)
	})
	// tagRe is PVE's pve-tag.
	tagRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9_][a-z0-9_+.-]*$`) })
)

// The longest a mapping's name (PVE's pve-configid) and a CPU model may be.
const (
	maxHostPCI = 128
	maxCPU     = 64
)

func isHostPCI(s string) bool { return len(s) <= maxHostPCI && hostPCIRe().MatchString(s) }

func isCPU(s string) bool { return len(s) <= maxCPU && cpuRe().MatchString(s) }

// vmSpec checks the VM description of a node's proxmox: section.
func (k *checker) vmSpec(at string, n Node) {
	p := n.Proxmox

	if p.Cores != 0 && (p.Cores < 1 || p.Cores > 512) {
		k.bad(at+".cores", "must be 1 to 512, got %d", p.Cores)
	}

	if p.Memory != 0 && p.Memory < 2048 {
		k.bad(at+".memory", "is MiB and must be at least 2048 (Talos needs 2 GiB), got %d", p.Memory)
	}

	if p.CPU != "" && !isCPU(p.CPU) {
		k.bad(at+".cpu", "%q is not a CPU type (host, x86-64-v2-AES, …)", p.CPU)
	}

	if p.Machine != "" && !machineRe().MatchString(p.Machine) {
		k.bad(at+".machine", "must be q35, pc or a versioned pc-q35-X.Y, got %q", p.Machine)
	}

	switch p.BIOS {
	case "", "seabios", "ovmf":
	default:
		k.bad(at+".bios", "must be seabios or ovmf, got %q", p.BIOS)
	}

	if n.SecureBoot && p.BIOS != "" && p.BIOS != "ovmf" {
		k.bad(at+".bios", "a SecureBoot node boots with UEFI: bios must be ovmf, got %q", p.BIOS)
	}

	if d := p.Disk; d != nil {
		if d.Size < 10 || d.Size > 65536 {
			k.bad(at+".disk.size", "is GiB and must be 10 to 65536 (Talos needs 10 GiB), got %d", d.Size)
		}

		if d.Storage != "" && !storageRe().MatchString(d.Storage) {
			k.bad(at+".disk.storage", "%q is not a Proxmox storage name", d.Storage)
		}
	}

	if p.Bridge != "" && !bridgeRe().MatchString(p.Bridge) {
		k.bad(at+".bridge", "%q is not a bridge name (vmbr0, …)", p.Bridge)
	}

	if p.VLAN != 0 && (p.VLAN < 1 || p.VLAN > 4094) {
		k.bad(at+".vlan", "must be a VLAN tag, 1 to 4094, got %d", p.VLAN)
	}

	if p.MAC != "" && !macRe().MatchString(p.MAC) {
		k.bad(at+".mac", "%q is not a unicast MAC address (BC:24:11:00:00:01)", p.MAC)
	}

	if len(p.HostPCI) > 16 {
		k.bad(at+".hostpci", "holds %d devices: Proxmox passes 16 at most", len(p.HostPCI))
	}

	for i, dev := range p.HostPCI {
		if !isHostPCI(dev) {
			k.bad(at+".hostpci["+strconv.Itoa(i)+"]", "%q is not a PCI address (0000:01:00) or a mapping name", dev)
		}
	}

	for i, tag := range p.Tags {
		if !tagRe().MatchString(tag) {
			k.bad(at+".tags["+strconv.Itoa(i)+"]", "%q is not a Proxmox tag (lower case letters, digits, _ + . -)", tag)
		}
	}
}
