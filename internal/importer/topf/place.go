package topf

import (
	"bytes"

	"github.com/talops/talops/internal/cluster"
)

// place renders every node's patches and lays them out as talops patches: a directory
// whose patches are the same for every node it applies to stays a shared list (all,
// controlplane, worker), otherwise each node lists its own copies, in topf's order.
// A role's directory can only stay shared when all/ does, since talops applies the shared
// lists before the node's.
func (im *mapping) place(c *config, spec *cluster.Spec) error {
	allFiles, err := im.scopeFiles("all")
	if err != nil {
		return err
	}

	roleFiles := map[string][]string{}
	for _, r := range []string{roleControlPlane, roleWorker} {
		if roleFiles[r], err = im.scopeFiles(r); err != nil {
			return err
		}
	}

	allItems := make([][]item, len(c.Nodes))
	roleItems := make([][]item, len(c.Nodes))
	nodeItems := make([][]item, len(c.Nodes))
	byRole := map[string][][]item{}

	for i := range c.Nodes {
		n := &c.Nodes[i]
		ctx := templateContext(c, n, im.patchesDir)

		spec.Nodes[i].Schematic, ctx.SchematicID = im.schematicOf(c, n, ctx)

		if allItems[i], err = im.items(allFiles, n, ctx); err != nil {
			return err
		}

		if roleItems[i], err = im.items(roleFiles[n.Role], n, ctx); err != nil {
			return err
		}

		own, err := im.scopeFiles("node/" + n.Host)
		if err != nil {
			return err
		}

		if nodeItems[i], err = im.items(own, n, ctx); err != nil {
			return err
		}

		byRole[n.Role] = append(byRole[n.Role], roleItems[i])
	}

	same := sameEverywhere(append(append(append([][]item{}, allItems...), roleItems...), nodeItems...))
	allShared := sameForAll(allItems)
	roleShared := map[string]bool{}

	for r, per := range byRole {
		roleShared[r] = allShared && sameForAll(per)
	}

	if allShared {
		if spec.Patches.All, err = im.shared(allItems[0]); err != nil {
			return err
		}
	}

	if roleShared[roleControlPlane] {
		if spec.Patches.ControlPlane, err = im.shared(byRole[roleControlPlane][0]); err != nil {
			return err
		}
	}

	if roleShared[roleWorker] {
		if spec.Patches.Worker, err = im.shared(byRole[roleWorker][0]); err != nil {
			return err
		}
	}

	for i := range c.Nodes {
		n := &c.Nodes[i]

		var own []item
		if !allShared {
			own = append(own, allItems[i]...)
		}

		if !roleShared[n.Role] {
			own = append(own, roleItems[i]...)
		}

		for _, it := range own {
			rel := it.out
			if it.template && !same[it.src] {
				rel = "nodes/" + n.Host + "/" + it.out
			}

			if err := im.repo.Add(rel, it.data); err != nil {
				return err
			}

			spec.Nodes[i].Patches = append(spec.Nodes[i].Patches, rel)
		}

		for _, it := range nodeItems[i] {
			if err := im.repo.Add(it.out, it.data); err != nil {
				return err
			}

			spec.Nodes[i].Patches = append(spec.Nodes[i].Patches, it.out)
		}
	}

	return nil
}

// shared writes the items of a shared list once and names them.
func (im *mapping) shared(items []item) ([]string, error) {
	var out []string

	for _, it := range items {
		if err := im.repo.Add(it.out, it.data); err != nil {
			return nil, err
		}

		out = append(out, it.out)
	}

	return out, nil
}

// sameEverywhere are the templates that render the same for every node that gets them,
// which one file serves even where they are listed per node.
func sameEverywhere(per [][]item) map[string]bool {
	data, same := map[string][]byte{}, map[string]bool{}

	for _, its := range per {
		for _, it := range its {
			old, seen := data[it.src]

			switch {
			case !seen:
				data[it.src], same[it.src] = it.data, true
			case !bytes.Equal(old, it.data):
				same[it.src] = false
			}
		}
	}

	return same
}
