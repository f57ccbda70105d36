package app

import (
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/health"
)

// healthChecks are the cluster's health checks for a rollout through k (nil: no
// Kubernetes API to read them from). A new cluster has no API yet and nothing to check;
// a running one whose API did not answer (--no-lock, why in lockless) is refused, fail
// closed: a check that cannot be read must not let the rollout through. A dry run, or a
// rollout that changes no node (needed false), reads none.
func healthChecks(d *Deps, c *cluster.Cluster, k Kube, lockless string, needed bool) ([]health.Check, error) {
	if !needed {
		return nil, nil
	}

	checks, err := c.HealthChecks()
	if err != nil || len(checks) == 0 || k != nil {
		return checks, err
	}

	if lockless != "" {
		return nil, &RefusedError{Reasons: []string{
			"talops.yaml has health checks and the Kubernetes API does not answer (" + lockless + "): no check could hold the rollout",
			"remove healthChecks for this apply to go on without them",
		}}
	}

	d.note("health checks are not read: the cluster has no Kubernetes API yet\n")

	return nil, nil
}
