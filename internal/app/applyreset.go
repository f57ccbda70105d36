package app

import (
	"context"
	"fmt"
	"strings"
)

// vmResetter is how apply --proxmox-reset brings back a node that did not come back after
// its reboot: a running VM is reset (a hung kernel or firmware), a stopped one started.
// Proxmox is reached before any node is touched, so that a token or section that does not
// work refuses the apply instead of failing a node halfway through. nil without the option
// or on a dry run.
func vmResetter(d *Deps, opts ApplyOptions) (func(ctx context.Context, node string) error, error) {
	if !opts.ProxmoxReset || opts.DryRun {
		return nil, nil
	}

	c, api, err := proxmoxRepo(d, opts.Dir)
	if err != nil {
		return nil, &RefusedError{Reasons: []string{"--proxmox-reset needs the Proxmox API:"}, Err: err}
	}

	type placement struct {
		node string
		vmid int
	}

	vms := map[string]placement{}

	for _, n := range c.Spec.Nodes {
		if n.Proxmox != nil {
			vms[n.Name] = placement{n.Proxmox.Node, n.Proxmox.VMID}
		}
	}

	return func(ctx context.Context, node string) error {
		p, ok := vms[node]
		if !ok {
			return fmt.Errorf("node %s has no proxmox: placement in talops.yaml", node)
		}

		st, err := api.VM(ctx, p.node, p.vmid)

		switch {
		case err != nil:
			return err
		case !st.Exists:
			return fmt.Errorf("VM %d is not on Proxmox node %s", p.vmid, p.node)
		case st.Running:
			d.note(fmt.Sprintf("resetting VM %d of %s on %s\n", p.vmid, node, p.node))

			return api.ResetVM(ctx, p.node, p.vmid)
		case strings.EqualFold(st.Status, "stopped"):
			d.note(fmt.Sprintf("starting VM %d of %s on %s (it was stopped)\n", p.vmid, node, p.node))

			return api.StartVM(ctx, p.node, p.vmid)
		default:
			// Paused or hibernated: whoever suspended it decides.
			return fmt.Errorf("VM %d on %s is %s: talops neither resets nor resumes it", p.vmid, p.node, st.Status)
		}
	}, nil
}
