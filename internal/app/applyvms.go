package app

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/talops/talops/internal/images"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/report"
)

// provisionVMs is apply --proxmox-vms: once the desired state checked out (no errors, the
// real bundle), it puts the boot ISOs in storage, creates the VMs of new nodes from their
// spec and starts them, then plans again until each new node answers in maintenance mode
// (or the gate's timeout passes): the plan that is checked and applied is the one where
// they are `create`. Creating a VM changes no node of the cluster; existing VMs are never
// changed.
func provisionVMs(ctx context.Context, d *Deps, opts *ApplyOptions, res *PlanResult, st *planned) (*PlanResult, *planned, error) {
	c := st.head.Cluster
	if c.Spec.ProxmoxAPI == nil {
		d.note("VMs: skipped, talops.yaml has no proxmox: section\n")

		return res, st, nil
	}

	if opts.ProxmoxImages {
		isos, err := ProxmoxImages(ctx, d, ProxmoxImagesOptions{Dir: opts.Dir, DryRun: opts.DryRun, Register: true})
		if err != nil {
			return nil, nil, &RefusedError{Reasons: []string{"the boot images in Proxmox storage could not be checked:"}, Err: err}
		}

		noteView(d, func(b *bytes.Buffer) error { return report.WriteProxmoxImages(b, report.FormatText, isos) })

		if isos.Summary.Failed > 0 {
			return nil, nil, &RefusedError{Reasons: []string{"some boot images could not be put in Proxmox storage (listed above)"}}
		}

		opts.ProxmoxImages = false // done: prepare does not do it again
	}

	vms, err := ProxmoxVMs(ctx, d, ProxmoxVMsOptions{Dir: opts.Dir, Create: !opts.DryRun})
	if err != nil {
		return nil, nil, &RefusedError{Reasons: []string{"the nodes' VMs could not be checked:"}, Err: err}
	}

	noteView(d, func(b *bytes.Buffer) error { return report.WriteProxmoxVMs(b, report.FormatText, vms) })

	if vms.Summary.Failed > 0 {
		return nil, nil, &RefusedError{Reasons: []string{"some VMs could not be created or checked (listed above)"}}
	}

	var created []string

	for _, vm := range vms.VMs {
		if vm.Outcome == images.VMCreated {
			created = append(created, vm.Node)
		}
	}

	if len(created) == 0 {
		return res, st, nil
	}

	return awaitNewNodes(ctx, d, opts, created)
}

// awaitNewNodes plans again until none of the nodes is unknown (they answer, in
// maintenance mode), or the gate's timeout passed: then the plan says why they are unknown,
// and the preflight refuses it.
func awaitNewNodes(ctx context.Context, d *Deps, opts *ApplyOptions, nodes []string) (*PlanResult, *planned, error) {
	now := d.Now
	if now == nil {
		now = time.Now
	}

	deadline := now().Add(orDefault(d.GateTimeout, defaultGateTimeout))
	interval := orDefault(d.GateInterval, defaultGateInterval)

	d.note(fmt.Sprintf("waiting for %s to boot Talos into maintenance mode\n", strings.Join(nodes, ", ")))

	// The reviewed plan was asked for once, by the first plan: the polls do not ask again.
	again := *opts
	again.Review = nil

	for {
		res, st, _, err := livePlan(ctx, d, &again)
		if err != nil {
			return nil, nil, err
		}

		waiting := slices.DeleteFunc(slices.Clone(nodes), func(name string) bool {
			return !slices.ContainsFunc(res.Plan.Nodes, func(n plan.Node) bool { return n.Name == name && n.Action == plan.Unknown })
		})

		if len(waiting) == 0 || !now().Before(deadline) {
			return res, st, nil
		}

		if err := sleep(ctx, d, interval); err != nil {
			return nil, nil, err
		}
	}
}

// sleep waits for d, or until ctx ends.
func sleep(ctx context.Context, d *Deps, wait time.Duration) error {
	if d.Sleep != nil {
		return d.Sleep(ctx, wait)
	}

	t := time.NewTimer(wait)
	defer t.Stop()

	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// noteView prints a view beside the output.
func noteView(d *Deps, write func(b *bytes.Buffer) error) {
	var b bytes.Buffer
	if write(&b) == nil {
		d.note(b.String())
	}
}
