package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/talops/talops/internal/applied"
)

var applyViews = Views[*applied.Report]{FormatText: stringView(ApplyText), FormatJSON: ApplyJSON}

// ApplyFormats are the formats of an apply report.
var ApplyFormats = applyViews.Formats()

// WriteApply writes the report of an apply in format.
func WriteApply(w io.Writer, format string, r *applied.Report) error {
	return applyViews.Write(w, format, r)
}

// ApplySummary is the first line of a report, counted from the outcomes.
func ApplySummary(r *applied.Report) string {
	title := "Apply"
	if r.DryRun {
		title = "Apply (dry run, nothing changed)"
	}

	count := r.Count()

	var parts []string

	for _, o := range applied.Outcomes {
		if count[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count[o], o))
		}
	}

	if len(parts) == 0 {
		parts = append(parts, "no nodes")
	}

	return fmt.Sprintf("%s: %s — %s", title, r.Cluster, strings.Join(parts, ", "))
}

// ApplyText is the report for people: the summary, then one line per node in rollout order.
func ApplyText(r *applied.Report) string {
	var b strings.Builder

	b.WriteString(ApplySummary(r) + "\n")
	fmt.Fprintf(&b, "mode %s, plan hash %s\n", r.Mode, r.PlanHash)

	if r.EtcdSnapshot != "" {
		fmt.Fprintf(&b, "etcd snapshot before the first control-plane change: %s\n", oneLine(r.EtcdSnapshot))
	}

	for _, l := range lockLines(r) {
		b.WriteString(l + "\n")
	}

	b.WriteString("\n")

	for _, n := range r.Nodes {
		fmt.Fprintf(&b, "  %s (%s, %s): %s", n.Name, n.Role, n.Action, n.Outcome)

		if n.Detail != "" {
			b.WriteString(" — " + oneLine(n.Detail))
		}

		b.WriteString("\n")

		for _, w := range n.Warnings {
			b.WriteString("    the node warns: " + oneLine(w) + "\n")
		}
	}

	return b.String()
}

// ApplyJSON is the report for tools.
func ApplyJSON(w io.Writer, r *applied.Report) error {
	count := r.Count()

	summary := applySummary{
		Line: ApplySummary(r), Failed: r.Failed(),
		Applied: count[applied.Applied], DryRun: count[applied.DryRun], Skipped: count[applied.Skipped],
		FailedNodes: count[applied.Failed], NotAttempted: count[applied.NotAttempted],
	}

	nodes := r.Nodes
	if nodes == nil {
		nodes = []applied.NodeResult{}
	}

	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")

	return enc.Encode(struct {
		Summary  applySummary `json:"summary"`
		Cluster  string       `json:"cluster"`
		PlanHash string       `json:"planHash"`
		Mode     string       `json:"mode"`
		DryRun   bool         `json:"dryRun"`
		// EtcdSnapshot is where the snapshot taken before the first control-plane change went.
		EtcdSnapshot string               `json:"etcdSnapshot,omitempty"`
		Nodes        []applied.NodeResult `json:"nodes"`
		// Stopped says why the rollout stopped before every node (the lock was lost).
		Stopped string `json:"stopped,omitempty"`
		// NoLock says why the apply ran without the apply lock (--no-lock).
		NoLock string `json:"noLock,omitempty"`
		// Window says the apply ran outside every maintenance window, and why it could.
		Window string `json:"window,omitempty"`
		// Unhealthy says which health check failed after the last node.
		Unhealthy string `json:"unhealthy,omitempty"`
		// Resumed says the rollout continued one of the same plan that had stopped.
		Resumed string `json:"resumed,omitempty"`
		// Options are the options the apply ran with that change what it does, and
		// where each came from.
		Options []applied.Option `json:"options,omitempty"`
	}{summary, r.Cluster, r.PlanHash, string(r.Mode), r.DryRun, r.EtcdSnapshot, nodes, r.Stopped, r.NoLock, r.Window, r.Unhealthy, r.Resumed, r.Options})
}

// lockLines say what the report records of how the apply was let run: without the apply lock,
// stopped because the lock was lost, outside every maintenance window, and with which
// options.
func lockLines(r *applied.Report) []string {
	var out []string

	if r.NoLock != "" {
		out = append(out, "no apply lock: "+oneLine(r.NoLock))
	}

	if r.Stopped != "" {
		out = append(out, "stopped before the next node: "+oneLine(r.Stopped))
	}

	if r.Unhealthy != "" {
		out = append(out, "after the last node: "+oneLine(r.Unhealthy))
	}

	if r.Window != "" {
		out = append(out, "maintenance window: "+oneLine(r.Window))
	}

	if r.Resumed != "" {
		out = append(out, oneLine(r.Resumed))
	}

	for _, o := range r.Options {
		out = append(out, optionLine(o))
	}

	return out
}

// optionLine says an option the apply ran with and where it came from.
func optionLine(o applied.Option) string {
	line := "option " + oneLine(o.Flag) + ": "

	switch {
	case o.Declared && o.Given:
		return line + "given, and declared in talops.yaml (apply." + o.Key + ")"
	case o.Declared:
		return line + "declared in talops.yaml (apply." + o.Key + ")"
	case o.Key != "":
		return line + "given, not declared in talops.yaml (no reviewed plan was enforced)"
	}

	return line + "given"
}

type applySummary struct {
	Line string `json:"line"`
	// Failed is true when a node failed and the rollout stopped.
	Failed       bool `json:"failed"`
	Applied      int  `json:"applied"`
	DryRun       int  `json:"dryRun"`
	Skipped      int  `json:"skipped"`
	FailedNodes  int  `json:"failedNodes"`
	NotAttempted int  `json:"notAttempted"`
}
