package plan

import (
	"fmt"
	"slices"
	"strings"
)

// Summary is the plan's first line, counted from the typed actions:
// "Plan: 5 nodes — 1 upgrade (v1.13.8 → v1.13.9), 1 reboot, 1 update, 2 unchanged".
func (p *Plan) Summary() string {
	if p.Blocked {
		return "No plan: the desired state has errors; fix them first"
	}

	counts := p.Count()

	var parts []string

	// Without any other count, "no changes" says it all; an unreadable node is never
	// "no changes".
	quiet := !p.HasChanges() && counts[Unknown] == 0

	for _, a := range Actions {
		n := counts[a]
		if n == 0 || (a == Noop && quiet) {
			continue
		}

		switch a {
		case Noop:
			parts = append(parts, fmt.Sprintf("%d unchanged", n))
		case Unknown:
			parts = append(parts, fmt.Sprintf("%d unreachable", n))
		case Upgrade:
			parts = append(parts, Plural(n, string(a))+p.versionChange())
		case Update:
			parts = append(parts, Plural(n, string(a))+p.layoutOnly())
		default:
			parts = append(parts, Plural(n, string(a)))
		}
	}

	if quiet {
		parts = []string{"no changes"}
	}

	counted := fmt.Sprintf("%s — %s%s%s", Plural(len(p.Nodes), "node"), strings.Join(parts, ", "), p.settingsChange(), needs(counts))

	// A refused plan is no list of changes to make: say so before the counts.
	if r := p.Refusals(); len(r) > 0 {
		return fmt.Sprintf("Plan refused: %s (%s)", strings.Join(r, "; "), counted)
	}

	return "Plan: " + counted
}

// needs names the apply options without which apply refuses the plan, known from its
// actions: a reader of the plan learns it before the merge, not from the failed apply.
func needs(counts map[Action]int) string {
	if counts[Remove] > 0 {
		return "; apply needs --allow-remove"
	}

	return ""
}

// Refusals are the reasons, known from the plan alone, why apply would not run it: a
// refused Kubernetes upgrade (its reasons are in Kubernetes.Refused), or nodes none of
// which could be read, which leave nothing to compare with.
func (p *Plan) Refusals() []string {
	var out []string

	if u := p.Kubernetes; u != nil && len(u.Refused) > 0 {
		out = append(out, fmt.Sprintf("the Kubernetes upgrade %s → %s cannot be applied as planned", u.From, u.To))
	}

	if p.Unreadable() {
		out = append(out, "no node's current state could be read")
	}

	return out
}

// Unreadable reports whether the plan has nodes and none of them could be read: against
// the running nodes, a plan of nothing read.
func (p *Plan) Unreadable() bool {
	return len(p.Nodes) > 0 && p.Count()[Unknown] == len(p.Nodes)
}

// settingsChange is "; settings change: 2 nodes and the cluster" when settings move
// ("" otherwise): a plan whose configs are unchanged never reads "no changes" then.
func (p *Plan) settingsChange() string {
	var where []string

	if n := len(slices.DeleteFunc(slices.Clone(p.Nodes), func(n Node) bool { return len(n.Settings) == 0 || n.Action == Create })); n > 0 {
		where = append(where, Plural(n, "node"))
	}

	if len(p.Settings) > 0 {
		where = append(where, "the cluster")
	}

	if len(where) == 0 {
		return ""
	}

	return "; settings change: " + strings.Join(where, " and ")
}

// Plural counts n of a word that takes an s: "1 reboot", "3 reboots", "0 nodes".
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}

	return fmt.Sprintf("%d %ss", n, word)
}

// versionChange is " (a → b)" when every upgrade moves the same Talos versions.
func (p *Plan) versionChange() string {
	change := ""

	for _, n := range p.Nodes {
		if n.Action != Upgrade || n.Upgrade == nil {
			continue
		}

		if n.Upgrade.FromVersion == n.Upgrade.ToVersion {
			return ""
		}

		c := fmt.Sprintf(" (%s → %s)", n.Upgrade.FromVersion, n.Upgrade.ToVersion)
		if change != "" && change != c {
			return ""
		}

		change = c
	}

	return change
}

// LayoutOnly counts the nodes whose config changes in layout only.
func (p *Plan) LayoutOnly() int {
	n := 0

	for _, node := range p.Nodes {
		if node.LayoutOnly {
			n++
		}
	}

	return n
}

// layoutOnly is " (layout only)" when every update changes the layout only, " (2 layout
// only)" when some do.
func (p *Plan) layoutOnly() string {
	n := 0

	for _, node := range p.Nodes {
		if node.Action == Update && node.LayoutOnly {
			n++
		}
	}

	switch {
	case n == 0:
		return ""
	case n == p.Count()[Update]:
		return " (layout only)"
	default:
		return fmt.Sprintf(" (%d layout only)", n)
	}
}

// Disruptive lists the nodes that reboot, upgrade or are removed, for a warning banner.
func (p *Plan) Disruptive() []Node {
	var out []Node

	for _, n := range p.Nodes {
		switch n.Action {
		case Upgrade, Reboot, Remove:
			out = append(out, n)
		}
	}

	return out
}
