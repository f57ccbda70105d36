package app

import "context"

// VMResetter is apply --proxmox-reset's way of bringing a node back, for its tests.
var VMResetter = vmResetter

// VMFindings is what plan --live says of the nodes' VMs, for its tests.
var VMFindings = vmFindings

// PlanInChunks is Plan against another state taking size nodes at a time.
func PlanInChunks(ctx context.Context, d *Deps, opts PlanOptions, size int) (*PlanResult, error) {
	opts.chunk = size

	return Plan(ctx, d, opts)
}

// PlanOverEveryNode is Plan against another state with every node of both states rendered
// first, as apply's plans are made.
func PlanOverEveryNode(ctx context.Context, d *Deps, opts PlanOptions) (*PlanResult, error) {
	head, err := loadToCompare(ctx, d, opts.Dir, true)
	if err != nil {
		return nil, err
	}

	res, _, err := planFrom(ctx, d, opts, head, nil)

	return res, err
}
