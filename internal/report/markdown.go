package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/talops/talops/internal/finding"
)

// FindingsMarkdown is the findings table for a job summary or PR comment. It lists
// every finding: the runner shows only the first ten annotations of each kind.
func FindingsMarkdown(fs []finding.Finding, nodes int) string {
	return findingsMarkdown(fs, nodes, len(fs), "")
}

// findingsMarkdown lists the first shown findings (sorted, so errors come first) and
// counts the others, which the full view (where) lists.
func findingsMarkdown(fs []finding.Finding, nodes, shown int, where string) string {
	var b strings.Builder

	b.WriteString("### talops validate\n\n")
	b.WriteString(Summary(fs, nodes) + "\n")

	shown = min(shown, len(fs))

	if shown > 0 {
		b.WriteString("\n| | code | node | where | message |\n|---|---|---|---|---|\n")
	}

	for _, f := range fs[:shown] {
		at := f.File
		if f.Line > 0 {
			at += ":" + strconv.Itoa(f.Line)
		}

		msg := f.Message
		if f.Path != "" {
			msg = "`" + f.Path + "` " + msg
		}

		fmt.Fprintf(&b, "| %s | `%s` | %s | %s | %s |\n", icon(f.Severity), f.Code, cell(f.Node), cell(at), cell(oneLine(msg)))
	}

	if shown < len(fs) {
		if where == "" {
			where = "the job summary"
		}

		fmt.Fprintf(&b, "\n… and %d more findings: %s lists every one\n", len(fs)-shown, where)
	}

	return b.String()
}

func icon(s finding.Severity) string {
	switch s {
	case finding.Error:
		return "❌"
	case finding.Warning:
		return "⚠️"
	default:
		return "ℹ️"
	}
}

func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
