package images

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/talops/talops/internal/cluster"
)

// Defaults of a VM talops creates where the node's proxmox: section says nothing: what a
// Talos node needs (2 GiB is its floor, x86-64-v2 its CPU floor, which "host" meets on any
// machine Proxmox runs), on PVE's usual names.
const (
	DefaultVMCores       = 2
	DefaultVMMemory      = 4096
	DefaultVMCPU         = "host"
	DefaultVMMachine     = "q35"
	DefaultVMDiskSize    = 32
	DefaultVMDiskStorage = "local-lvm"
	DefaultVMBridge      = "vmbr0"
)

// VMCreateParams are the parameters of PVE's POST /nodes/{node}/qemu that create a node's
// VM: sized from its proxmox: section (defaults above where it says nothing), the boot ISO
// isoVolume ("local:iso/talos-….iso") in its CD drive, disk first then the ISO in the boot
// order (an empty disk boots the ISO, an installed one boots Talos), and the QEMU guest
// agent on. Each parameter is one of PVE's qemu config keys (pve-manager's API viewer:
// nodes/{node}/qemu, POST).
func VMCreateParams(n cluster.Node, isoVolume string) map[string]string {
	p := n.Proxmox

	bios := p.BIOS
	if bios == "" && n.SecureBoot {
		bios = "ovmf"
	}

	disk := cluster.ProxmoxDisk{Size: DefaultVMDiskSize, Storage: DefaultVMDiskStorage}
	if p.Disk != nil {
		disk.Size = p.Disk.Size
		if p.Disk.Storage != "" {
			disk.Storage = p.Disk.Storage
		}
	}

	machine := or(p.Machine, DefaultVMMachine)

	params := map[string]string{
		"vmid":    strconv.Itoa(p.VMID),
		"name":    n.Name,
		"cores":   strconv.Itoa(orInt(p.Cores, DefaultVMCores)),
		"memory":  strconv.Itoa(orInt(p.Memory, DefaultVMMemory)),
		"cpu":     or(p.CPU, DefaultVMCPU),
		"machine": machine,
		"ostype":  "l26",
		"agent":   "enabled=1",
		"scsihw":  "virtio-scsi-single",
		"scsi0":   fmt.Sprintf("%s:%d,discard=on,iothread=1", disk.Storage, disk.Size),
		"ide2":    isoVolume + ",media=cdrom",
		"boot":    "order=scsi0;ide2",
		"net0":    netParam(p),
	}

	if bios != "" {
		params["bios"] = bios
	}

	if bios == "ovmf" {
		// The EFI vars disk; no Microsoft keys: a SecureBoot Talos ISO enrolls its own.
		params["efidisk0"] = disk.Storage + ":1,efitype=4m,pre-enrolled-keys=0"
	}

	for i, dev := range p.HostPCI {
		v := dev
		if strings.Contains(machine, "q35") {
			v += ",pcie=1"
		}

		params["hostpci"+strconv.Itoa(i)] = v
	}

	if len(p.Tags) > 0 {
		params["tags"] = strings.Join(p.Tags, ";")
	}

	return params
}

func netParam(p *cluster.Proxmox) string {
	v := "virtio"
	if p.MAC != "" {
		v += "=" + strings.ToUpper(p.MAC)
	}

	v += ",bridge=" + or(p.Bridge, DefaultVMBridge)

	if p.VLAN != 0 {
		v += ",tag=" + strconv.Itoa(p.VLAN)
	}

	return v
}

// VMDrift lists how an existing VM's config (GET /nodes/{node}/qemu/{vmid}/config, values
// as text) differs from what the node's proxmox: section sets: one "field want → have"
// line per difference ("cores 8 → 4", "hostpci0 0000:01:00 → missing"). Only what the
// section sets is compared: talops never changes a VM, and PVE's own defaults are no drift.
func VMDrift(n cluster.Node, config map[string]string) []string {
	p := n.Proxmox

	var out []string

	differ := func(field, want, have string) {
		if have == "" {
			have = "none"
		}

		out = append(out, fmt.Sprintf("%s: %s wanted, the VM has %s", field, want, have))
	}

	if p.Cores != 0 && config["cores"] != strconv.Itoa(p.Cores) {
		differ("cores", strconv.Itoa(p.Cores), config["cores"])
	}

	if p.Memory != 0 && config["memory"] != strconv.Itoa(p.Memory) {
		differ("memory", strconv.Itoa(p.Memory)+" MiB", orMissing(config["memory"], " MiB"))
	}

	if p.CPU != "" && cpuType(config["cpu"]) != p.CPU {
		differ("cpu", p.CPU, cpuType(config["cpu"]))
	}

	if p.Machine != "" && !sameMachine(p.Machine, config["machine"]) {
		differ("machine", p.Machine, or(config["machine"], "pc (PVE's default)"))
	}

	if p.BIOS != "" && or(config["bios"], "seabios") != p.BIOS {
		differ("bios", p.BIOS, or(config["bios"], "seabios"))
	}

	net := options(config["net0"])

	if p.Bridge != "" && net["bridge"] != p.Bridge {
		differ("bridge", p.Bridge, net["bridge"])
	}

	if p.VLAN != 0 && net["tag"] != strconv.Itoa(p.VLAN) {
		differ("vlan", strconv.Itoa(p.VLAN), or(net["tag"], "none"))
	}

	if p.MAC != "" && !strings.EqualFold(net[""], p.MAC) {
		differ("mac", strings.ToUpper(p.MAC), net[""])
	}

	for i, dev := range p.HostPCI {
		key := "hostpci" + strconv.Itoa(i)
		if have := strings.SplitN(config[key], ",", 2)[0]; pciID(have) != pciID(dev) {
			differ(key, dev, have)
		}
	}

	if len(p.Tags) > 0 {
		want, have := slices.Sorted(slices.Values(p.Tags)), tags(config["tags"])
		if !slices.Equal(want, have) {
			differ("tags", strings.Join(want, ";"), strings.Join(have, ";"))
		}
	}

	return out
}

// options reads a PVE property string ("virtio=BC:24:11:00:00:01,bridge=vmbr0,tag=20"):
// the model's value (the MAC) is under "".
func options(s string) map[string]string {
	out := map[string]string{}

	for i, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")

		switch {
		case i == 0 && ok && (k == "virtio" || k == "e1000" || k == "vmxnet3" || k == "rtl8139"):
			out[""] = v
		case ok:
			out[k] = v
		}
	}

	return out
}

// cpuType is the CPU model of a cpu value ("host,flags=+aes" → host); PVE's default is
// what the VM runs without one.
func cpuType(s string) string {
	if s == "" {
		return "kvm64 (PVE's default)"
	}

	if t, ok := strings.CutPrefix(strings.SplitN(s, ",", 2)[0], "cputype="); ok {
		return t
	}

	return strings.SplitN(s, ",", 2)[0]
}

// sameMachine reads q35 as any q35 version PVE pinned ("pc-q35-9.0"), and pc likewise.
func sameMachine(want, have string) bool {
	if have == "" {
		have = "pc"
	}

	if want == have {
		return true
	}

	switch want {
	case "q35":
		return strings.HasPrefix(have, "pc-q35-")
	case "pc":
		return strings.HasPrefix(have, "pc-i440fx-")
	}

	return false
}

// pciID drops the default PCI domain, which PVE writes either way.
func pciID(s string) string { return strings.ToLower(strings.TrimPrefix(s, "0000:")) }

func tags(s string) []string {
	var out []string

	out = append(out, strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == ',' || r == ' ' })...)

	slices.Sort(out)

	return out
}

func or(v, def string) string {
	if v == "" {
		return def
	}

	return v
}

func orInt(v, def int) int {
	if v == 0 {
		return def
	}

	return v
}

func orMissing(v, unit string) string {
	if v == "" {
		return ""
	}

	return v + unit
}
