package migrate

import "github.com/talops/talops/internal/cluster"

// InputOf is what Rewrite reads of a loaded repository: talops.yaml's bytes, every patch
// file it names once, with how many nodes of each role use it and the kernel arguments
// all their schematics carry, and the role counts.
func InputOf(c *cluster.Cluster, talops []byte, target string) Input {
	in := Input{From: c.ConfigVersion(), Target: target, Talops: talops}
	index := map[string]int{}

	for _, n := range c.Spec.Nodes {
		args := SchematicKernelArgs(c, n)

		if n.Role == cluster.RoleControlPlane {
			in.ControlPlanes++
		} else {
			in.Workers++
		}

		for _, rel := range c.NodePatches(n) {
			i, seen := index[rel]
			if !seen {
				data, _ := c.File(rel)
				i = len(in.Patches)
				index[rel] = i
				in.Patches = append(in.Patches, Patch{Path: rel, Data: data, SchematicKernelArgs: args})
			} else {
				in.Patches[i].SchematicKernelArgs = intersect(in.Patches[i].SchematicKernelArgs, args)
			}

			if n.Role == cluster.RoleControlPlane {
				in.Patches[i].ControlPlanes++
			} else {
				in.Patches[i].Workers++
			}
		}
	}

	return in
}
