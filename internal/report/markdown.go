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

		fmt.Fprintf(&b, "| %s | `%s` | %s | %s | %s |\n", icon(f.Severity), f.Code, cell(f.Node), cell(at), messageCell(f))
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

// Every string that comes from the user or from another system (names, paths, messages,
// reasons, versions, bodies of responses) goes through text, code or cell before it enters
// markdown: a cluster named "lab\n<!--" must not open an HTML comment that hides the
// summary, the diffs and the footer, nor a node's reason close its <details>.

// inlineReplacer keeps text on one line (no heading, list, quote or hidden line of its
// own), shows HTML as text, and keeps backticks and link syntax from starting a code
// span or a link.
var inlineReplacer = strings.NewReplacer(
	"\r\n", " ", "\r", " ", "\n", " ",
	"&", "&amp;", "<", "&lt;", ">", "&gt;",
	"`", "\\`", "](", "]\\(",
)

// text is a user-derived string made inert inline in markdown.
func text(s string) string { return inlineReplacer.Replace(s) }

// code is s as an inline code span, or as text when it holds what could end the span
// early or what a renderer might take for HTML.
func code(s string) string {
	if strings.ContainsAny(s, "`<>&\r\n") {
		return text(s)
	}

	return "`" + s + "`"
}

// pipes keeps | from ending a table cell.
func pipes(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// cell is a user-derived string made inert in a table cell.
func cell(s string) string { return pipes(text(s)) }

// messageCell is a finding's path and message in a table cell.
func messageCell(f finding.Finding) string {
	msg := text(oneLine(f.Message))
	if f.Path != "" {
		msg = code(f.Path) + " " + msg
	}

	return pipes(msg)
}
