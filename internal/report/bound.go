package report

import (
	"fmt"
	"strings"

	"github.com/talops/talops/internal/plan"
)

// What a plan binds besides the nodes' diffs, shown so that a reviewer reads what the hash
// holds: the maintenance windows when they change, the files that set a secret value
// other than before (named, the value never shown), the apply options talops.yaml declares,
// and health checks as written.

// anyTime is how a plan names the absence of a maintenance: section.
const anyTime = "none: apply may run at any time"

// windows is one side of a maintenance change.
func windows(s string) string {
	if s == "" {
		return anyTime
	}

	return s
}

// secretChanged is the line a plan says for a file that sets a secret value other than
// before.
func secretChanged(file string) string {
	return "a secret value set in " + file + " changed"
}

// boundText is the maintenance change and the changed secret values for a terminal.
func boundText(p *plan.Plan, c palette) string {
	var b strings.Builder

	if m := p.Maintenance; m != nil {
		fmt.Fprintf(&b, "%s maintenance windows: %s → %s\n\n", c.wrap("33", "~"), windows(m.From), windows(m.To))
	}

	if len(p.ApplyOptions) > 0 {
		b.WriteString(c.wrap("33", "!") + " apply options talops.yaml declares (apply:), which widen what apply does:\n")

		for _, o := range p.ApplyOptions {
			fmt.Fprintf(&b, "    %s\n", o)
		}

		b.WriteString("\n")
	}

	if len(p.SecretValuesChanged) > 0 {
		b.WriteString(c.wrap("33", "~") + " secret values the diffs show as " + plan.Redacted + ":\n")

		for _, f := range p.SecretValuesChanged {
			fmt.Fprintf(&b, "    %s\n", secretChanged(f))
		}

		b.WriteString("\n")
	}

	return b.String()
}

// healthCheckText is a check for a terminal, an expression of several lines indented
// below it as written.
func healthCheckText(check string) string {
	first, rest, _ := strings.Cut(lineBreaks(check), "\n")
	if rest == "" {
		return "    " + first + "\n"
	}

	return "    " + first + "\n        " + strings.ReplaceAll(rest, "\n", "\n        ") + "\n"
}

// healthCheckMarkdown is a check as a list item, an expression of several lines in a
// code block below it, as written.
func healthCheckMarkdown(check string) string {
	first, rest, _ := strings.Cut(lineBreaks(check), "\n")
	if rest == "" {
		return "- " + text(first)
	}

	f := fence(rest)

	return "- " + text(first) + "\n\n  " + f + "\n  " + strings.ReplaceAll(rest, "\n", "\n  ") + "\n  " + f
}

// lineBreaks makes every line break of s a "\n", as CEL reads them.
func lineBreaks(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}
