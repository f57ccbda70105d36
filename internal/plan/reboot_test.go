package plan_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/testlab"
)

// gpuModules is the kernel module list of k8s-node1 in the reference lab.
const gpuModules = `  kernel:
    modules:
      - name: nvidia
      - name: nvidia_uvm
      - name: nvidia_drm
      - name: nvidia_modeset
`

func TestCompute_RebootPredictionPerRelease(t *testing.T) {
	for _, tc := range []struct {
		name  string
		talos string
		// edit changes the desired state (and current, when both must differ from the lab).
		edit       func(t *testing.T, current, desired cluster.MapFiles)
		node       string
		wantAction plan.Action
		wantReason string
	}{
		{
			name:  "removing every kernel module reboots from 1.14",
			talos: "v1.14.0-rc.1",
			edit: func(t *testing.T, _, desired cluster.MapFiles) {
				testlab.Edit(t, desired, "nodes/k8s-node1.yaml", gpuModules, "")
			},
			node: "k8s-node1", wantAction: plan.Reboot,
			wantReason: "machine.kernel.modules lost or changed a module: takes effect after a reboot",
		},
		{
			name:  "removing every kernel module is applied live up to 1.13",
			talos: "v1.13.9",
			edit: func(t *testing.T, _, desired cluster.MapFiles) {
				testlab.Edit(t, desired, "nodes/k8s-node1.yaml", gpuModules, "")
			},
			node: "k8s-node1", wantAction: plan.Update,
			wantReason: "machine.kernel changed: applied live",
		},
		{
			name:  "adding a first kernel module is applied live from 1.14",
			talos: "v1.14.0-rc.1",
			edit: func(t *testing.T, _, desired cluster.MapFiles) {
				desired["nodes/k8s-node2.yaml"] = append([]byte("machine:\n  kernel:\n    modules:\n      - name: br_netfilter\n---\n"), desired["nodes/k8s-node2.yaml"]...)
			},
			node: "k8s-node2", wantAction: plan.Update,
			wantReason: "machine.kernel changed: applied live",
		},
		{
			name:  "machine.env reboots up to 1.13",
			talos: "v1.13.9",
			edit: func(t *testing.T, _, desired cluster.MapFiles) {
				desired["nodes/k8s-node3.yaml"] = append([]byte("machine:\n  env:\n    HTTP_PROXY: http://10.0.20.1:3128\n---\n"), desired["nodes/k8s-node3.yaml"]...)
			},
			node: "k8s-node3", wantAction: plan.Reboot,
			wantReason: "machine.env changed: needs a reboot on Talos ≤ 1.13",
		},
		{
			name:  "a sysctl is applied live up to 1.13",
			talos: "v1.13.9",
			edit: func(t *testing.T, _, desired cluster.MapFiles) {
				testlab.Edit(t, desired, "patches/common.yaml", `fs.inotify.max_user_instances: "8192"`, `fs.inotify.max_user_instances: "4096"`)
			},
			node: "k8s-master", wantAction: plan.Update,
			wantReason: "machine.sysctls changed: applied live",
		},
		{
			name:  "a file needs a reboot from 1.14: Talos writes files only at boot",
			talos: "v1.14.0-rc.1",
			edit: func(t *testing.T, _, desired cluster.MapFiles) {
				desired["nodes/k8s-node2.yaml"] = append([]byte("machine:\n  files:\n    - path: /var/etc/motd\n      permissions: 0o644\n      op: create\n      content: hello\n---\n"), desired["nodes/k8s-node2.yaml"]...)
			},
			node: "k8s-node2", wantAction: plan.Reboot,
			wantReason: "machine.files changed: Talos writes files only at boot, so the change takes effect after a reboot",
		},
		{
			name:  "disk encryption keys take effect after a reboot from 1.14",
			talos: "v1.14.0-rc.1",
			edit: func(t *testing.T, _, desired cluster.MapFiles) {
				desired["nodes/k8s-node2.yaml"] = append([]byte("machine:\n  systemDiskEncryption:\n    ephemeral:\n      provider: luks2\n      keys:\n        - nodeID: {}\n          slot: 0\n---\n"), desired["nodes/k8s-node2.yaml"]...)
			},
			node: "k8s-node2", wantAction: plan.Reboot,
			wantReason: "machine.systemDiskEncryption changed: volume encryption takes effect after a reboot",
		},
		{
			name:  "a SecurityProfileConfig that keeps workload isolation off changes nothing to reboot for",
			talos: "v1.14.0-rc.1",
			edit: func(t *testing.T, _, desired cluster.MapFiles) {
				desired["patches/common.yaml"] = append(desired["patches/common.yaml"], []byte("---\napiVersion: v1alpha1\nkind: SecurityProfileConfig\nworkloadIsolation: false\n")...)
			},
			node: "k8s-node2", wantAction: plan.Update,
			wantReason: "SecurityProfileConfig added: the same effect as before, nothing to apply",
		},
		{
			name:  "a SecurityProfileConfig that turns workload isolation on takes effect after a reboot",
			talos: "v1.14.0-rc.1",
			edit: func(t *testing.T, _, desired cluster.MapFiles) {
				desired["patches/common.yaml"] = append(desired["patches/common.yaml"], []byte("---\napiVersion: v1alpha1\nkind: SecurityProfileConfig\nworkloadIsolation: true\n")...)
			},
			node: "k8s-node2", wantAction: plan.Reboot,
			wantReason: "SecurityProfileConfig added: takes effect after a reboot",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			current, desired := testlab.Files(t), testlab.Files(t)

			for _, f := range []cluster.MapFiles{current, desired} {
				testlab.SetVersions(t, f, tc.talos, "")
			}

			tc.edit(t, current, desired)

			n := nodeNamed(t, compute(t, current, desired), tc.node)

			if n.Action != tc.wantAction || !contains(n.Reasons, tc.wantReason) {
				t.Errorf("%s: %s %q, want %s with %q", tc.node, n.Action, n.Reasons, tc.wantAction, tc.wantReason)
			}
		})
	}
}

func TestCompute_From114AnInstallerChangeIsTheUpgradeItself(t *testing.T) {
	current, desired := testlab.Files(t), testlab.Files(t)
	testlab.SetVersions(t, current, "v1.14.0-beta.1", "")
	testlab.SetVersions(t, desired, "v1.14.0-rc.1", "")

	n := nodeNamed(t, compute(t, current, desired), "k8s-node2")

	// The upgrade moves the installer: the document's change is neither live nor repeated.
	if n.Action != plan.Upgrade || len(n.Reasons) != 1 || contains(n.Reasons, "UnattendedInstallConfig changed: applied live") {
		t.Errorf("k8s-node2: %s %q", n.Action, n.Reasons)
	}
}

func nodeNamed(t *testing.T, p *plan.Plan, name string) plan.Node {
	t.Helper()

	for _, n := range p.Nodes {
		if n.Name == name {
			return n
		}
	}

	t.Fatalf("no node %s in the plan", name)

	return plan.Node{}
}

func contains(reasons []string, want string) bool {
	for _, r := range reasons {
		if strings.Contains(r, want) {
			return true
		}
	}

	return false
}
