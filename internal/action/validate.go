package action

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/report"
)

func (a *runner) validate(ctx context.Context) (*result, error) {
	strict, err := boolInput(a.gha, InputStrict)
	if err != nil {
		return nil, err
	}

	res, err := app.Validate(ctx, a.d.App(), app.ValidateOptions{Dir: a.dir(), Strict: strict})
	if err != nil {
		return nil, err
	}

	a.maskSecrets()

	errs, warns, notes := finding.Count(res.Findings)

	compact, err := json.Marshal(res.Findings)
	if err != nil {
		return nil, err
	}

	out := &result{
		commands: annotations(res.Findings),
		log:      report.Summary(res.Findings, res.Nodes) + "\n",
		summary:  report.FindingsMarkdown(res.Findings, res.Nodes),
		outputs: map[string]string{
			"errors":   strconv.Itoa(errs),
			"warnings": strconv.Itoa(warns),
			"notes":    strconv.Itoa(notes),
			"findings": string(compact),
		},
	}

	if errs > 0 {
		out.failed = "validation failed"
	}

	return out, nil
}

// dir is the repository directory input.
func (a *runner) dir() string { return orDefault(a.gha.GetInput(InputDir), ".") }

func orDefault(v, def string) string {
	if v == "" {
		return def
	}

	return v
}
