package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/rollout"
	"github.com/talops/talops/internal/talos"
)

// removalKube is the Kubernetes API that drains the nodes apply removes and deletes their
// Node objects: reached with the admin kubeconfig of a control plane of talops.yaml. It is
// nil when nothing is removed or no Kubernetes client is set up (the nodes are then reset
// without a drain, and the rollout says so). A removal that cannot reach a Kubernetes API
// it was given is refused before any node is touched.
func removalKube(ctx context.Context, d *Deps, dialer talos.Dialer, c *cluster.Cluster, steps []rollout.Step) (rollout.Kube, error) {
	if d.Kube == nil || !removes(steps) {
		return nil, nil
	}

	var errs []error

	for _, n := range c.Spec.Nodes {
		if n.Role != "controlplane" {
			continue
		}

		data, err := kubeconfigOf(ctx, d, dialer, n.Address)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s", n.Name, talos.OneLine(err)))

			continue
		}

		d.mask(kubeconfigSecrets(data)...)

		k, err := d.Kube(data)
		if err != nil {
			return nil, &RefusedError{Reasons: []string{"the Kubernetes API that drains the removed nodes could not be reached:"}, Err: err}
		}

		return k, nil
	}

	return nil, &RefusedError{Reasons: []string{"no control plane gave the kubeconfig that drains the removed nodes:"}, Err: errors.Join(errs...)}
}

// removes reports whether a step selected to run removes its node.
func removes(steps []rollout.Step) bool {
	for _, s := range steps {
		if s.Node.Action == plan.Remove && !s.NotSelected {
			return true
		}
	}

	return false
}
