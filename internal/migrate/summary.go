package migrate

import (
	"fmt"
	"strings"
)

// Summary is a migration in one screen: the moves grouped by the section they leave and
// the document they become, the old contract's defaults kept, and what stays grouped by
// why, each with its places. Counted from the typed moves, never from text.
type Summary struct {
	Moves []Group `json:"moves"`
	Kept  []Group `json:"kept"`
	Stays []Stay  `json:"stays"`
	// Files are the files that would change (talops.yaml first), Added those of them the
	// migration adds.
	Files []string `json:"files"`
	Added []string `json:"added,omitempty"`
}

// Group is what moves from one section to one document.
type Group struct {
	// From is the v1alpha1 section (machine.kubelet) or, for a default kept, what it keeps.
	From string `json:"from"`
	To   string `json:"to"`
	// Fields counts the moves of the group; Places are their file:line, in order.
	Fields int      `json:"fields"`
	Places []string `json:"places"`
}

// Stay is a field that stays where it is, for one reason, with its places.
type Stay struct {
	Path   string   `json:"path"`
	Reason string   `json:"reason"`
	Places []string `json:"places"`
}

// Summarize groups a migration's moves and what stays.
func Summarize(r *Result) Summary {
	s := Summary{Moves: []Group{}, Kept: []Group{}, Stays: []Stay{}, Files: []string{}, Added: r.Added}

	for _, f := range r.Files {
		s.Files = append(s.Files, f.Path)
	}

	for _, m := range r.Moved {
		if m.Kept {
			_, what, _ := strings.Cut(m.From, "contract's default: ")
			s.Kept = addTo(s.Kept, what, m.To, Place(m.File, m.Line))

			continue
		}

		s.Moves = addTo(s.Moves, section(m.From), m.To, Place(m.File, m.Line))
	}

	for _, l := range r.Left {
		i := indexOf(s.Stays, func(x Stay) bool { return x.Path == l.Path && x.Reason == l.Reason })
		if i < 0 {
			s.Stays = append(s.Stays, Stay{Path: l.Path, Reason: l.Reason})
			i = len(s.Stays) - 1
		}

		s.Stays[i].Places = append(s.Stays[i].Places, Place(l.File, l.Line))
	}

	return s
}

// addTo counts a move into its group, made when it is the first.
func addTo(groups []Group, from, to, place string) []Group {
	i := indexOf(groups, func(g Group) bool { return g.From == from && g.To == to })
	if i < 0 {
		groups = append(groups, Group{From: from, To: to})
		i = len(groups) - 1
	}

	groups[i].Fields++
	groups[i].Places = append(groups[i].Places, place)

	return groups
}

func indexOf[T any](list []T, match func(T) bool) int {
	for i, x := range list {
		if match(x) {
			return i
		}
	}

	return -1
}

// section is the first three keys of a v1alpha1 path (machine.kubelet.extraArgs of
// machine.kubelet.extraArgs.rotate-server-certificates): the part of the document a group
// of moves leaves.
func section(path string) string {
	parts := strings.SplitN(path, ".", 4)

	return strings.Join(parts[:min(len(parts), 3)], ".")
}

// Place is file:line, or the file alone when the line is not known.
func Place(file string, line int) string {
	if line == 0 {
		return file
	}

	return fmt.Sprintf("%s:%d", file, line)
}
