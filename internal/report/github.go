package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/talops/talops/internal/finding"
)

// FindingsGitHub writes workflow commands, so findings become annotations on the
// pull request's files, then the summary line.
func FindingsGitHub(w io.Writer, fs []finding.Finding, nodes int) error {
	var b strings.Builder

	for _, f := range fs {
		b.WriteString(Annotation(f) + "\n")
	}

	b.WriteString(Summary(fs, nodes) + "\n")

	_, err := io.WriteString(w, b.String())

	return err
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
