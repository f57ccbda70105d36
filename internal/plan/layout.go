package plan

import (
	"slices"
	"strings"

	"github.com/talops/talops/internal/migrate"
)

// layoutOnly records a config change that moves fields between the v1alpha1 document and
// the documents that replace them and changes nothing the node runs: the same proof talops
// migrate writes by (migrate.CompareLayouts, over every accessor of machinery). It says
// whether it did; a change of anything else is left to configChanges.
func (node *Node) layoutOnly(c, n NodeState, ch changes) bool {
	// A move takes fields out of the v1alpha1 document into others (or from one document
	// into another): a change that sets a field anywhere is no move, whatever machinery's
	// accessors answer.
	if !movedOut(ch) {
		return false
	}

	l := migrate.CompareLayouts(migrate.Node{Config: c.Config, SchematicKernelArgs: c.SchematicKernelArgs}, migrate.Node{Config: n.Config, SchematicKernelArgs: n.SchematicKernelArgs})
	if !l.LayoutOnly() {
		return false
	}

	node.ConfigChanged = true
	node.LayoutOnly = true
	node.Reasons = append(node.Reasons, layoutReasons(ch, l)...)

	return true
}

// movedOut is a change that only takes fields out of the v1alpha1 document and changes
// other documents: with no field left the v1alpha1 document, a document must have gone too.
func movedOut(ch changes) bool {
	if len(ch.docKinds) == 0 || slices.ContainsFunc(ch.paths, func(p string) bool { return !ch.gone[p] }) {
		return false
	}

	return len(ch.paths) > 0 || slices.ContainsFunc(ch.docKinds, func(d docChange) bool { return d.how == "removed" })
}

// layoutReasons say that nothing the node runs changes, where the fields went, and what
// the new documents do by themselves.
func layoutReasons(ch changes, l migrate.Layout) []string {
	out := []string{"layout only: the node runs every setting as before, written in other documents: applied live, no reboot, no drain"}

	var sections []string
	for _, p := range ch.paths {
		sections = appendUnique(sections, section(p))
	}

	if len(sections) > 0 {
		out = append(out, "out of the v1alpha1 document: "+strings.Join(sections, ", "))
	}

	docs := make([]string, 0, len(ch.docKinds))
	for _, d := range ch.docKinds {
		docs = append(docs, d.String())
	}

	out = append(out, "documents: "+strings.Join(docs, ", "))

	for _, why := range l.Inherent {
		out = append(out, "the new documents by themselves: "+why)
	}

	return out
}
