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
	var b strings.Builder

	b.WriteString("### talops validate\n\n")
	b.WriteString(Summary(fs, nodes) + "\n")

	if len(fs) == 0 {
		return b.String()
	}

	b.WriteString("\n| | code | node | where | message |\n|---|---|---|---|---|\n")

	for _, f := range fs {
		where := f.File
		if f.Line > 0 {
			where += ":" + strconv.Itoa(f.Line)
		}

		msg := f.Message
		if f.Path != "" {
			msg = "`" + f.Path + "` " + msg
		}

		fmt.Fprintf(&b, "| %s | `%s` | %s | %s | %s |\n", icon(f.Severity), f.Code, cell(f.Node), cell(where), cell(oneLine(msg)))
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
