package action

import (
	"sync"

	"github.com/talops/talops/internal/rollout"
)

// nodeGroups folds the rollout's progress into one ::group:: per node in the step's log,
// so that a long rollout reads as a list of nodes to unfold. The lines keep their
// "[i/n] node:" prefix: a log searched or copied without its folds still says which node.
// A group ends when the next node's starts, and at the end of the rollout.
type nodeGroups struct {
	// write prints content to the step's log (masked, inert); group and endGroup are
	// talops' own workflow commands, written as commands.
	write    func(text string)
	group    func(title string)
	endGroup func()

	mu   sync.Mutex
	open string
}

// step prints one progress line, in its node's group; a line about no node goes where it
// falls, and the end of the rollout closes the last group, before anything else is printed.
func (g *nodeGroups) step(p rollout.Progress) {
	g.mu.Lock()
	defer g.mu.Unlock()

	switch {
	case p.End:
		g.endLocked()

		return
	case p.Node == "":
		g.write(p.String() + "\n")

		return
	}

	if h := p.Heading(); h != g.open {
		g.endLocked()
		g.group(h)
		g.open = h
	}

	g.write(p.String() + "\n")
}

func (g *nodeGroups) endLocked() {
	if g.open != "" {
		g.endGroup()
		g.open = ""
	}
}
