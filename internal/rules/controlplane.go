package rules

import (
	"slices"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
)

// controlPlanePresent warns about a cluster without a control-plane node: it cannot be
// bootstrapped, and nothing serves the endpoint its workers join.
func controlPlanePresent(in *Input) []finding.Finding {
	if slices.ContainsFunc(in.Cluster.Spec.Nodes, func(n cluster.Node) bool { return n.Role == cluster.RoleControlPlane }) {
		return nil
	}

	return []finding.Finding{{
		Severity: finding.Warning, Code: CodeNoControlPlane, File: in.Cluster.Path(cluster.FileName), Line: in.Cluster.Line("nodes"), Path: "nodes",
		Message: "no node has role controlplane: the cluster cannot be bootstrapped and its workers have no endpoint " + in.Cluster.Spec.Cluster.Endpoint + " to join",
	}}
}
