package rollout

import "fmt"

// Progress is one step of one node as it happens.
type Progress struct {
	// Index is the node's position in the rollout (from 1), of Total.
	Index, Total int
	Node         string
	// What is the step: "draining", "rebooting it", "applied after 1m42s".
	What string
}

// String is the progress line: "[2/5] k8s-node1: rebooting it".
func (p Progress) String() string {
	return fmt.Sprintf("[%d/%d] %s: %s", p.Index, p.Total, p.Node, p.What)
}

// Heading names the node a line is about: "[2/5] k8s-node1", the title of its group.
func (p Progress) Heading() string {
	return fmt.Sprintf("[%d/%d] %s", p.Index, p.Total, p.Node)
}
