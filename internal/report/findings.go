// Package report renders findings (and later plans) for people and tools:
// text, JSON, GitHub workflow commands and markdown.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/plan"
)

// Formats the findings views support.
const (
	FormatText   = "text"
	FormatJSON   = "json"
	FormatGitHub = "github"
)

// findingsOf is what a findings view shows: the findings and how many nodes were checked.
type findingsOf struct {
	findings []finding.Finding
	nodes    int
}

var findingViews = Views[findingsOf]{
	FormatText:   func(w io.Writer, f findingsOf) error { return FindingsText(w, f.findings, f.nodes) },
	FormatJSON:   func(w io.Writer, f findingsOf) error { return FindingsJSON(w, f.findings) },
	FormatGitHub: func(w io.Writer, f findingsOf) error { return FindingsGitHub(w, f.findings, f.nodes) },
}

// FindingFormats lists the formats of validate.
var FindingFormats = findingViews.Formats()

// Findings writes findings in one format.
func Findings(w io.Writer, format string, fs []finding.Finding, nodes int) error {
	return findingViews.Write(w, format, findingsOf{fs, nodes})
}

// FindingsJSON writes {"findings": [...]}.
func FindingsJSON(w io.Writer, fs []finding.Finding) error {
	if fs == nil {
		fs = []finding.Finding{}
	}

	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")

	return enc.Encode(struct {
		Findings []finding.Finding `json:"findings"`
	}{fs})
}

// FindingsText writes one line per finding, then a summary line.
func FindingsText(w io.Writer, fs []finding.Finding, nodes int) error {
	var b strings.Builder

	for _, f := range fs {
		b.WriteString(place(f))
		fmt.Fprintf(&b, "%s %s", f.Severity, f.Code)

		if f.Node != "" {
			fmt.Fprintf(&b, " [%s]", f.Node)
		}

		if f.Path != "" {
			fmt.Fprintf(&b, " %s:", f.Path)
		}

		b.WriteString(" " + oneLine(f.Message) + "\n")
	}

	b.WriteString(Summary(fs, nodes) + "\n")

	_, err := io.WriteString(w, b.String())

	return err
}

// Summary is the closing line of validate: counts by severity.
func Summary(fs []finding.Finding, nodes int) string {
	e, wn, i := finding.Count(fs)

	verdict := "ok"
	if e > 0 {
		verdict = "failed"
	}

	return fmt.Sprintf("validate %s: %s checked, %s, %s, %s", verdict, plan.Plural(nodes, "node"), plan.Plural(e, "error"), plan.Plural(wn, "warning"), plan.Plural(i, "note"))
}

func place(f finding.Finding) string {
	switch {
	case f.File != "" && f.Line > 0:
		return f.File + ":" + strconv.Itoa(f.Line) + ": "
	case f.File != "":
		return f.File + ": "
	default:
		return ""
	}
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
