package report

import (
	"fmt"
	"strings"

	"github.com/talops/talops/internal/applied"
)

// ApplyMarker is the hidden line that identifies a cluster's apply comment on the merged
// pull request; it differs from the plan's, so the two comments stay apart.
func ApplyMarker(cluster string) string {
	return "<!-- talops:apply cluster=" + markerName(cluster) + " -->"
}

// ApplyView is what the markdown of an apply shows around the report.
type ApplyView struct {
	// Marker opens the markdown with ApplyMarker (the pull request comment).
	Marker bool
	// Commit is the commit applied ("" when unknown).
	Commit string
	// Notes are lines under the summary: how the plan was checked, skipped steps.
	Notes []string
}

// detailLimit bounds a node's detail in a table cell: a node's error can be long, and
// the comment must stay under GitHub's limit whatever the cluster's size.
const detailLimit = 300

// ApplyMarkdown is the report for the job summary and the merged pull request: the
// summary line, then one table row per node in rollout order.
func ApplyMarkdown(r *applied.Report, v ApplyView) string {
	var b strings.Builder

	if v.Marker {
		b.WriteString(ApplyMarker(r.Cluster) + "\n")
	}

	fmt.Fprintf(&b, "### talops apply: %s\n\n**%s**\n\n", text(r.Cluster), text(ApplySummary(r)))

	facts := []string{"mode `" + string(r.Mode) + "`", "plan hash `" + r.PlanHash[:min(12, len(r.PlanHash))] + "`"}
	if v.Commit != "" {
		facts = append(facts, "commit `"+v.Commit[:min(12, len(v.Commit))]+"`")
	}

	b.WriteString(strings.Join(facts, ", ") + "\n\n")

	notes := append(lockLines(r), v.Notes...)

	for _, n := range notes {
		b.WriteString("> " + text(oneLine(n)) + "\n")
	}

	if len(notes) > 0 {
		b.WriteString("\n")
	}

	if len(r.Nodes) == 0 {
		return b.String()
	}

	b.WriteString("| node | role | action | outcome | detail |\n|---|---|---|---|---|\n")

	for _, n := range r.Nodes {
		detail := oneLine(n.Detail)
		for _, w := range n.Warnings {
			detail += "; the node warns: " + oneLine(w)
		}

		if runes := []rune(detail); len(runes) > detailLimit {
			detail = string(runes[:detailLimit]) + "…"
		}

		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", cell(n.Name), cell(string(n.Role)), cell(string(n.Action)), cell(string(n.Outcome)), cell(detail))
	}

	return b.String()
}

// ApplyRefusedMarkdown is the merged pull request's comment when apply refused: why, as
// apply said it (already masked), and that no node was changed.
func ApplyRefusedMarkdown(cluster, why string) string {
	// GitHub takes 65,536 characters at most; the reasons are one line per node at worst.
	if runes := []rune(why); len(runes) > 60000 {
		why = string(runes[:60000]) + "\n…"
	}

	f := fence(why)

	return ApplyMarker(cluster) + "\n### talops apply: " + text(cluster) + "\n\n**Apply refused: no node was changed.**\n\n" + f + "\n" + strings.TrimSpace(why) + "\n" + f + "\n"
}
