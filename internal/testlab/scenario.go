package testlab

import (
	"testing"

	"github.com/talops/talops/internal/cluster"
)

// Changed returns the reference lab with one change of every kind a plan knows:
// a sysctl on the control plane (update), a file on k8s-node2 (reboot: Talos writes files only at boot),
// a new schematic on k8s-node3 (upgrade), k8s-node5 added (create), k8s-node4 removed
// (remove); k8s-node1 stays as it is (noop).
func Changed(t testing.TB) cluster.MapFiles {
	t.Helper()

	files := Files(t)

	files["nodes/k8s-master.yaml"] = append([]byte("machine:\n  sysctls:\n    vm.max_map_count: \"262144\"\n---\n"), files["nodes/k8s-master.yaml"]...)
	files["nodes/k8s-node2.yaml"] = append([]byte("machine:\n  files:\n    - path: /var/etc/motd\n      permissions: 0o644\n      op: create\n      content: hello\n---\n"), files["nodes/k8s-node2.yaml"]...)

	files["schematics/storage.yaml"] = []byte("customization:\n  systemExtensions:\n    officialExtensions:\n      - siderolabs/iscsi-tools\n      - siderolabs/nfs-utils\n      - siderolabs/qemu-guest-agent\n")
	Edit(t, files, "talops.yaml", "  gpu: schematics/gpu.yaml\n", "  gpu: schematics/gpu.yaml\n  storage: schematics/storage.yaml\n")
	Edit(t, files, "talops.yaml", "    schematic: base\n    installDisk: /dev/sda\n    patches: [nodes/k8s-node3.yaml]", "    schematic: storage\n    installDisk: /dev/sda\n    patches: [nodes/k8s-node3.yaml]")

	Edit(t, files, "talops.yaml", `  - name: k8s-node4
    address: 10.0.20.104
    role: worker
    schematic: base
    installDisk: /dev/sda
    patches: [nodes/k8s-node4.yaml]
    proxmox: {node: pve, vmid: 204}
`, `  - name: k8s-node5
    address: 10.0.20.105
    role: worker
    schematic: base
    installDisk: /dev/sda
    patches: [nodes/k8s-node5.yaml]
    proxmox: {node: pve, vmid: 205}
`)
	files["nodes/k8s-node5.yaml"] = []byte("apiVersion: v1alpha1\nkind: HostnameConfig\nauto: \"off\"\nhostname: k8s-node5\n")

	return files
}
