package images_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/images"
)

func gpuWorker() cluster.Node {
	return cluster.Node{Name: "k8s-node1", Role: "worker", Proxmox: &cluster.Proxmox{
		Node: "pve1", VMID: 201, Cores: 8, Memory: 16384, Machine: "q35", BIOS: "ovmf",
		Disk: &cluster.ProxmoxDisk{Size: 64, Storage: "nvme"}, Bridge: "vmbr1", VLAN: 20, MAC: "bc:24:11:00:00:01",
		HostPCI: []string{"0000:01:00"}, Tags: []string{"talos", "gpu"},
	}}
}

// TestVMCreateParams_FromTheSpecWithDefaults: the parameters PVE's create call gets, for a
// described GPU worker and for a node that only names its placement.
func TestVMCreateParams_FromTheSpecWithDefaults(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name string
		node cluster.Node
		want map[string]string
	}{
		{"a GPU worker with its passthrough and UEFI", gpuWorker(), map[string]string{
			"vmid": "201", "name": "k8s-node1", "cores": "8", "memory": "16384", "cpu": "host", "machine": "q35",
			"bios": "ovmf", "efidisk0": "nvme:1,efitype=4m,pre-enrolled-keys=0", "ostype": "l26", "agent": "enabled=1",
			"scsihw": "virtio-scsi-single", "scsi0": "nvme:64,discard=on,iothread=1",
			"ide2": "local:iso/talos.iso,media=cdrom", "boot": "order=scsi0;ide2",
			"net0": "virtio=BC:24:11:00:00:01,bridge=vmbr1,tag=20", "hostpci0": "0000:01:00,pcie=1", "tags": "talos;gpu",
		}},
		{"only a placement: the defaults", cluster.Node{Name: "w2", Proxmox: &cluster.Proxmox{Node: "pve1", VMID: 202}}, map[string]string{
			"vmid": "202", "name": "w2", "cores": "2", "memory": "4096", "cpu": "host", "machine": "q35", "ostype": "l26",
			"agent": "enabled=1", "scsihw": "virtio-scsi-single", "scsi0": "local-lvm:32,discard=on,iothread=1",
			"ide2": "local:iso/talos.iso,media=cdrom", "boot": "order=scsi0;ide2", "net0": "virtio,bridge=vmbr0",
		}},
		{"a SecureBoot node gets UEFI without saying so", cluster.Node{Name: "w3", SecureBoot: true, Proxmox: &cluster.Proxmox{Node: "pve1", VMID: 203}}, map[string]string{
			"vmid": "203", "name": "w3", "cores": "2", "memory": "4096", "cpu": "host", "machine": "q35", "ostype": "l26",
			"bios": "ovmf", "efidisk0": "local-lvm:1,efitype=4m,pre-enrolled-keys=0",
			"agent": "enabled=1", "scsihw": "virtio-scsi-single", "scsi0": "local-lvm:32,discard=on,iothread=1",
			"ide2": "local:iso/talos.iso,media=cdrom", "boot": "order=scsi0;ide2", "net0": "virtio,bridge=vmbr0",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			got := images.VMCreateParams(tc.node, "local:iso/talos.iso")
			if !maps.Equal(got, tc.want) {
				for _, k := range slices.Sorted(maps.Keys(got)) {
					if got[k] != tc.want[k] {
						t.Errorf("%s = %q, want %q", k, got[k], tc.want[k])
					}
				}

				for k := range tc.want {
					if _, ok := got[k]; !ok {
						t.Errorf("%s missing, want %q", k, tc.want[k])
					}
				}
			}
		})
	}
}

// TestVMDrift_ListsWhatTheSpecSetsAndTheVMDoesNot: a VM as created from its spec has no
// drift (PVE's version-pinned machine and default domain included); a VM changed by hand
// has one line per field; fields the spec leaves out are never drift.
func TestVMDrift_ListsWhatTheSpecSetsAndTheVMDoesNot(t *testing.T) {
	t.Parallel()

	asCreated := map[string]string{
		"cores": "8", "memory": "16384", "cpu": "host", "machine": "pc-q35-9.0", "bios": "ovmf",
		"net0": "virtio=BC:24:11:00:00:01,bridge=vmbr1,tag=20,firewall=1", "hostpci0": "01:00,pcie=1", "tags": "gpu;talos",
	}

	if drift := images.VMDrift(gpuWorker(), asCreated); len(drift) > 0 {
		t.Errorf("a VM as created drifts: %q", drift)
	}

	byHand := map[string]string{"cores": "4", "memory": "16384", "net0": "virtio=BC:24:11:00:00:02,bridge=vmbr0", "tags": "talos"}
	want := []string{
		"cores: 8 wanted, the VM has 4",
		"machine: q35 wanted, the VM has pc (PVE's default)",
		"bios: ovmf wanted, the VM has seabios",
		"bridge: vmbr1 wanted, the VM has vmbr0",
		"vlan: 20 wanted, the VM has none",
		"mac: BC:24:11:00:00:01 wanted, the VM has BC:24:11:00:00:02",
		"hostpci0: 0000:01:00 wanted, the VM has none",
		"tags: gpu;talos wanted, the VM has talos",
	}

	if got := images.VMDrift(gpuWorker(), byHand); !slices.Equal(got, want) {
		t.Errorf("drift:\n%q\nwant:\n%q", got, want)
	}

	withCPU := gpuWorker()
	withCPU.Proxmox.CPU = "host"

	if got := images.VMDrift(withCPU, byHand); !slices.Contains(got, "cpu: host wanted, the VM has kvm64 (PVE's default)") {
		t.Errorf("a CPU type the VM lacks is not drift: %q", got)
	}

	placed := cluster.Node{Name: "w2", Proxmox: &cluster.Proxmox{Node: "pve1", VMID: 202}}
	if drift := images.VMDrift(placed, byHand); len(drift) > 0 {
		t.Errorf("a node without a VM description drifts: %q", drift)
	}
}
