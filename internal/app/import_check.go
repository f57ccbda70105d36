package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/scaffold"
)

// ImportDoesNotRenderError refuses an import whose repository would not render or
// validate: Findings are validate's errors on it, placed at the files the import would
// have written. Nothing was written.
type ImportDoesNotRenderError struct {
	Out      string
	Findings []finding.Finding
}

func (e *ImportDoesNotRenderError) Error() string {
	var b strings.Builder

	fmt.Fprintf(&b, "the imported repository does not validate, so nothing was written to %s:", e.Out)

	for _, f := range e.Findings {
		b.WriteString("\n  ")

		if f.File != "" {
			b.WriteString(f.File)

			if f.Line > 0 {
				fmt.Fprintf(&b, ":%d", f.Line)
			}

			b.WriteString(": ")
		}

		if f.Node != "" {
			b.WriteString(f.Node + ": ")
		}

		fmt.Fprintf(&b, "%s: %s", f.Code, f.Message)
	}

	return b.String()
}

// checkImport renders every node of the repository an import is about to write, from
// memory and with its bundle in clear, and judges it as validate does: an import that
// would write a repository failing to render or validate is refused before anything is
// written (ImportDoesNotRenderError). With a talosconfig it is then planned against the
// running nodes (liveDifferences).
func checkImport(ctx context.Context, d *Deps, opts ImportOptions, bundleFile string, plain []byte, files []scaffold.File) ([]finding.Finding, error) {
	m := cluster.MapFiles{bundleFile: plain}
	for _, f := range files {
		m[f.Path] = f.Data
	}

	open := func(string) (cluster.Files, func() error, error) { return m, func() error { return nil }, nil }

	r, err := openAndLoad(ctx, d, open, opts.Out, opts.Out, nil, nil, false)
	if err != nil {
		if fs, ok := InputFindings(err); ok {
			return nil, &ImportDoesNotRenderError{Out: opts.Out, Findings: fs}
		}

		return nil, fmt.Errorf("load the imported repository: %w", err)
	}

	findings, err := judgeNodes(ctx, d, r, opts.Offline, false)
	if err != nil {
		return nil, fmt.Errorf("validate the imported repository: %w", err)
	}

	var errs []finding.Finding

	for _, f := range findings {
		if f.Severity == finding.Error {
			errs = append(errs, f)
		}
	}

	if len(errs) > 0 {
		return nil, &ImportDoesNotRenderError{Out: opts.Out, Findings: errs}
	}

	return liveDifferences(ctx, d, opts, r)
}
