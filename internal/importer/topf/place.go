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
	r, err := im.renderScopes(c, spec)
	if err != nil {
		return err
	}

	same := sameEverywhere(append(append(append([][]item{}, r.all...), r.role...), r.node...))
	allShared := sameForAll(r.all)
	roleShared := map[string]bool{}

	for role, per := range r.byRole {
		roleShared[role] = allShared && sameForAll(per)
	}

	if err := im.placeShared(spec, r, allShared, roleShared); err != nil {
		return err
	}

	for i := range c.Nodes {
		if err := im.placeOwn(&c.Nodes[i], &spec.Nodes[i], r, i, same, allShared, roleShared); err != nil {
			return err
		}
	}

	return nil
}

// scopes are every node's rendered patches of each topf directory: all/, its role's and
// its own, and the role's by role.
type scopes struct {
	all, role, node [][]item
	byRole          map[string][][]item
}

// renderScopes renders every node's patches of each directory, and picks its schematic.
func (im *mapping) renderScopes(c *config, spec *cluster.Spec) (*scopes, error) {
	allFiles, err := im.scopeFiles("all")
	if err != nil {
		return nil, err
	}

	roleFiles := map[string][]string{}
	for _, r := range []string{roleControlPlane, roleWorker} {
		if roleFiles[r], err = im.scopeFiles(r); err != nil {
			return nil, err
		}
	}

	r := &scopes{all: make([][]item, len(c.Nodes)), role: make([][]item, len(c.Nodes)), node: make([][]item, len(c.Nodes)), byRole: map[string][][]item{}}

	for i := range c.Nodes {
		n := &c.Nodes[i]
		ctx := templateContext(c, n, im.patchesDir)

		spec.Nodes[i].Schematic, ctx.SchematicID = im.schematicOf(c, n, ctx)

		if r.all[i], err = im.items(allFiles, n, ctx); err != nil {
			return nil, err
		}

		if r.role[i], err = im.items(roleFiles[n.Role], n, ctx); err != nil {
			return nil, err
		}

		own, err := im.scopeFiles("node/" + n.Host)
		if err != nil {
			return nil, err
		}

		if r.node[i], err = im.items(own, n, ctx); err != nil {
			return nil, err
		}

		r.byRole[n.Role] = append(r.byRole[n.Role], r.role[i])
	}

	return r, nil
}

// placeShared writes the directories that stay shared lists.
func (im *mapping) placeShared(spec *cluster.Spec, r *scopes, allShared bool, roleShared map[string]bool) error {
	var err error

	if allShared {
		if spec.Patches.All, err = im.shared(r.all[0]); err != nil {
			return err
		}
	}

	if roleShared[roleControlPlane] {
		if spec.Patches.ControlPlane, err = im.shared(r.byRole[roleControlPlane][0]); err != nil {
			return err
		}
	}

	if roleShared[roleWorker] {
		if spec.Patches.Worker, err = im.shared(r.byRole[roleWorker][0]); err != nil {
			return err
		}
	}

	return nil
}

// placeOwn writes the i-th node's own copies of what is not shared, then its own patches.
func (im *mapping) placeOwn(n *node, out *cluster.Node, r *scopes, i int, same map[string]bool, allShared bool, roleShared map[string]bool) error {
	var own []item
	if !allShared {
		own = append(own, r.all[i]...)
	}

	if !roleShared[n.Role] {
		own = append(own, r.role[i]...)
	}

	for _, it := range own {
		rel := it.out
		if it.template && !same[it.src] {
			rel = "nodes/" + n.Host + "/" + it.out
		}

		if err := im.repo.Add(rel, it.data); err != nil {
			return err
		}

		out.Patches = append(out.Patches, rel)
	}

	for _, it := range r.node[i] {
		if err := im.repo.Add(it.out, it.data); err != nil {
			return err
		}

		out.Patches = append(out.Patches, it.out)
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
