package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/images"
	"github.com/talops/talops/internal/rules"
)

// vmFindings are what plan --live says of the nodes' VMs when the Proxmox token is in the
// environment: a missing VM, and how an existing one differs from its spec, each at the
// node's proxmox: line. Without a proxmox: section or a token it asks nothing; a Proxmox
// that does not answer is a note, not a failed plan.
func vmFindings(ctx context.Context, d *Deps, dir string, c *cluster.Cluster) []finding.Finding {
	if c.Spec.ProxmoxAPI == nil || d.Proxmox == nil || d.Getenv(EnvProxmoxTokenID) == "" || d.Getenv(EnvProxmoxTokenSecret) == "" {
		return nil
	}

	vms, err := ProxmoxVMs(ctx, d, ProxmoxVMsOptions{Dir: dir})
	if err != nil {
		d.note("VMs: not compared with their spec: " + err.Error() + "\n")

		return nil
	}

	index := map[string]int{}
	for i, n := range c.Spec.Nodes {
		index[n.Name] = i
	}

	var out []finding.Finding

	for _, vm := range vms.VMs {
		at := fmt.Sprintf("nodes[%d].proxmox", index[vm.Node])
		place := finding.Finding{Severity: finding.Warning, File: c.Path(cluster.FileName), Line: c.Line(at), Node: vm.Node}

		switch vm.Outcome {
		case images.VMMissing:
			f := place
			f.Code, f.Path = rules.CodeProxmoxVMMissing, at
			f.Message = fmt.Sprintf("VM %d is not on Proxmox node %s: proxmox vms --create or apply --proxmox-vms creates it", vm.VMID, vm.ProxmoxNode)
			out = append(out, f)
		case images.VMFailed:
			d.note(fmt.Sprintf("VM of %s: not compared with its spec: %s\n", vm.Node, vm.Error))
		}

		for _, line := range vm.Drift {
			field, _, _ := strings.Cut(line, ":")
			f := place
			f.Code, f.Path, f.Message = rules.CodeProxmoxVMDrift, at+"."+field, fmt.Sprintf("VM %d: %s", vm.VMID, line)
			out = append(out, f)
		}
	}

	return out
}
