package report

import (
	"fmt"
	"strings"

	"github.com/talops/talops/internal/rules"
)

// FindingCodes is docs/findings.md: the reference of every finding code, from the table
// the rules keep beside the codes.
func FindingCodes(codes []rules.CodeDoc) string {
	var b strings.Builder

	b.WriteString("# Finding codes\n\n")
	b.WriteString("<!-- Generated from internal/rules/reference.go by `go test ./internal/report -run TestFindingCodes -update`: edit that table, not this file. -->\n\n")
	b.WriteString("Every finding talops reports (`validate`, `plan`, `versions`, `schematics`) carries one of\n")
	b.WriteString("these codes. Codes are stable: tools and workflows may match on them, and a code never\n")
	b.WriteString("changes meaning. In `--format text` a finding reads `file:line: severity code [node] path:\n")
	b.WriteString("message`; in JSON it is `{severity, code, message, file, line, node, path}`.\n\n")
	b.WriteString("| code | severity | meaning and fix |\n|---|---|---|\n")

	for _, c := range codes {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", c.Code, c.Severity, c.Meaning)
	}

	return b.String()
}
