package talhelper

import "github.com/talops/talops/internal/cluster"

// clusterPlatform makes the platform most nodes' machineSpec.mode names (of those named
// most, the first in node order) the cluster's, and keeps a node's own only where it
// differs: a bare-metal box beside VMs names its platform, the VMs do not. The default,
// metal, is left unwritten.
func clusterPlatform(spec *cluster.Spec) {
	count := map[string]int{}
	for _, n := range spec.Nodes {
		count[n.Platform]++
	}

	most := ""

	for _, n := range spec.Nodes {
		if count[n.Platform] > count[most] {
			most = n.Platform
		}
	}

	for i := range spec.Nodes {
		if spec.Nodes[i].Platform == most {
			spec.Nodes[i].Platform = ""
		}
	}

	if most != cluster.DefaultPlatform {
		spec.Platform = most
	}
}
