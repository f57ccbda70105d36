package cluster_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
)

// TestLoad_VMSpecIsCheckedWhereItIsWritten: every field of a node's VM description is
// checked against what PVE takes, and a mistake names its file, line and field.
func TestLoad_VMSpecIsCheckedWhereItIsWritten(t *testing.T) {
	t.Parallel()

	spec := func(body string) func(string) string {
		return func(s string) string {
			return strings.Replace(s, "    role: worker\n", "    role: worker\n    proxmox:\n      node: pve1\n      vmid: 201\n"+body, 1)
		}
	}

	for _, tc := range []struct {
		name, body, want string
	}{
		{"too little memory for Talos", "      memory: 1024\n", "lab/talops.yaml:21: nodes[1].proxmox.memory: is MiB and must be at least 2048"},
		{"no cores", "      cores: -1\n", "lab/talops.yaml:21: nodes[1].proxmox.cores: must be 1 to 512, got -1"},
		{"an unknown bios", "      bios: uefi\n", "lab/talops.yaml:21: nodes[1].proxmox.bios: must be seabios or ovmf, got \"uefi\""},
		{"a machine PVE does not know", "      machine: virt\n", "lab/talops.yaml:21: nodes[1].proxmox.machine: must be q35, pc"},
		{"a disk too small for Talos", "      disk: {size: 4}\n", "lab/talops.yaml:21: nodes[1].proxmox.disk.size: is GiB and must be 10 to 65536"},
		{"a disk storage that is no storage name", "      disk: {size: 32, storage: Local LVM}\n", "nodes[1].proxmox.disk.storage: \"Local LVM\" is not a Proxmox storage name"},
		{"a VLAN out of range", "      vlan: 5000\n", "lab/talops.yaml:21: nodes[1].proxmox.vlan: must be a VLAN tag, 1 to 4094, got 5000"},
		{"a multicast MAC", "      mac: 01:00:5E:00:00:01\n", "lab/talops.yaml:21: nodes[1].proxmox.mac: \"01:00:5E:00:00:01\" is not a unicast MAC address"},
		{"a PCI address with a typo", "      hostpci: [\"0000:01:00\", \"01:0g:00\"]\n", "lab/talops.yaml:21: nodes[1].proxmox.hostpci[1]: \"01:0g:00\" is not a PCI address"},
		{"a tag with upper case", "      tags: [talos, GPU]\n", "lab/talops.yaml:21: nodes[1].proxmox.tags[1]: \"GPU\" is not a Proxmox tag"},
		{"an unknown key", "      sockets: 2\n", "lab/talops.yaml:21: nodes[1].proxmox.sockets: unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			_, err := cluster.Load("lab", files(spec(tc.body)(minimal)))

			var ie *cluster.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is not an *InputError", err)
			}

			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error\n%s\ndoes not contain\n%s", err, tc.want)
			}
		})
	}

	full := "      cores: 8\n      memory: 16384\n      cpu: host\n      machine: q35\n      bios: ovmf\n      disk: {size: 64, storage: local-lvm}\n" +
		"      bridge: vmbr0\n      vlan: 20\n      mac: BC:24:11:00:00:01\n      hostpci: [\"0000:01:00\", gpu-a4000]\n      tags: [talos, gpu]\n"
	if _, err := cluster.Load("lab", files(spec(full)(minimal))); err != nil {
		t.Errorf("a complete VM description: %v", err)
	}
}
