package rollout

import "fmt"

// Progress is one event of an apply as it happens: a step of one node, a line about no
// node (a health check waiting, a step of the Kubernetes upgrade), or the end of the
// rollout. Every progress of an apply is one stream of these.
type Progress struct {
	// Index is the node's position in the rollout (from 1), of Total; both 0 and Node ""
	// for a line about no node.
	Index, Total int
	Node         string
	// What is the step: "draining", "rebooting it", "applied after 1m42s".
	What string
	// End marks the end of the rollout: nothing follows.
	End bool
}

// String is the progress line: "[2/5] k8s-node1: rebooting it", or What alone for a line
// about no node.
func (p Progress) String() string {
	if p.Node == "" {
		return p.What
	}

	return fmt.Sprintf("[%d/%d] %s: %s", p.Index, p.Total, p.Node, p.What)
}

// Line is a progress line about no node.
func Line(what string) Progress { return Progress{What: what} }

// Heading names the node a line is about: "[2/5] k8s-node1", the title of its group.
func (p Progress) Heading() string {
	return fmt.Sprintf("[%d/%d] %s", p.Index, p.Total, p.Node)
}
