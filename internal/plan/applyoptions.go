package plan

import "github.com/talops/talops/internal/cluster"

// ApplyOptionsOf describes the options of talops.yaml's apply: section that widen what
// apply does, one each as the section writes it with what it lets apply do: a reviewer
// reads them in every plan, since apply acts on them without a flag.
func ApplyOptionsOf(c *cluster.Cluster) []string {
	a := c.Spec.Apply
	if a == nil {
		return nil
	}

	var out []string

	add := func(on bool, line string) {
		if on {
			out = append(out, line)
		}
	}

	add(a.AllowRemove, "allowRemove: true: apply removes the nodes a plan removes (drain, reset, delete their Kubernetes Node)")
	add(a.NoDrain(), "drain: false: nodes reboot and upgrade without a drain")
	add(a.NoLock(), "lock: false: apply goes on without the apply lock when the cluster's Kubernetes API does not answer")
	add(a.IgnoreWindow, "ignoreWindow: true: apply runs outside the maintenance windows")
	add(a.NoEtcdBackup(), "etcdBackup: false: no etcd snapshot is taken before the first control plane changes")
	add(a.Mode != "" && a.Mode != "auto", "mode: "+a.Mode+": configs are applied in mode "+a.Mode)
	add(a.ProxmoxVMs, "proxmoxVMs: true: apply creates and starts the missing VMs of nodes")
	add(a.ProxmoxReset, "proxmoxReset: true: apply resets the VM of a node that does not come back healthy")

	return out
}
