package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/talops/talops/internal/finding"
)

// FindingsGitHub writes workflow commands, so findings become annotations on the
// pull request's files, then the summary line.
func FindingsGitHub(w io.Writer, fs []finding.Finding, nodes int) error {
	var b strings.Builder

	for _, a := range Annotations(fs) {
		b.WriteString(a + "\n")
	}

	b.WriteString(Summary(fs, nodes) + "\n")

	_, err := io.WriteString(w, b.String())

	return err
}

// Annotations are the workflow commands for findings, one per place: a finding that
// several nodes share (a patch they all take) is one annotation naming the nodes, since
// GitHub shows only the first ten of a step.
func Annotations(fs []finding.Finding) []string {
	type place struct {
		severity                  finding.Severity
		code, file, path, message string
		line                      int
	}

	var (
		order []place
		nodes = map[place][]string{}
		first = map[place]finding.Finding{}
	)

	for _, f := range fs {
		p := place{f.Severity, f.Code, f.File, f.Path, f.Message, f.Line}
		if _, seen := first[p]; !seen {
			order = append(order, p)
			first[p] = f
		}

		if f.Node != "" && !slices.Contains(nodes[p], f.Node) {
			nodes[p] = append(nodes[p], f.Node)
		}
	}

	out := make([]string, 0, len(order))

	for _, p := range order {
		f := first[p]
		f.Node = strings.Join(nodes[p], ", ")
		out = append(out, Annotation(f))
	}

	return out
}

// Annotation is the workflow command for one finding.
func Annotation(f finding.Finding) string {
	cmd := "notice"

	switch f.Severity {
	case finding.Error:
		cmd = "error"
	case finding.Warning:
		cmd = "warning"
	}

	var props []string
	if f.File != "" {
		props = append(props, "file="+escapeProperty(f.File))
		if f.Line > 0 {
			props = append(props, "line="+strconv.Itoa(f.Line))
		}
	}

	title := f.Code
	if f.Node != "" {
		title += " (" + f.Node + ")"
	}

	props = append(props, "title="+escapeProperty(title))

	msg := f.Message
	if f.Path != "" {
		msg = f.Path + ": " + msg
	}

	return fmt.Sprintf("::%s %s::%s", cmd, strings.Join(props, ","), escapeData(msg))
}

// escapeData and escapeProperty follow the runner's workflow command encoding.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
