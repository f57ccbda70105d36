package action

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/report"
)

func (a *runner) validate(ctx context.Context) error {
	strict, err := boolInput(a.gha, InputStrict)
	if err != nil {
		return err
	}

	opts := &cli.ValidateOptions{
		Deps:   a.d,
		Dir:    orDefault(a.gha.GetInput(InputDir), "."),
		Strict: strict,
		Format: report.FormatGitHub,
	}

	res, err := cli.Validate(ctx, opts)
	if err != nil {
		return err
	}

	a.maskSecrets()

	var b strings.Builder

	b.WriteString(annotations(res.Findings))

	b.WriteString(report.Summary(res.Findings, res.Nodes) + "\n")

	if _, err := a.d.Stdout.Write([]byte(a.d.Masker().String(b.String()))); err != nil {
		return err
	}

	if err := a.summary(report.FindingsMarkdown(res.Findings, res.Nodes)); err != nil {
		return err
	}

	errs, warns, notes := finding.Count(res.Findings)

	compact, err := json.Marshal(res.Findings)
	if err != nil {
		return err
	}

	if err := a.outputs(map[string]string{
		"errors":   strconv.Itoa(errs),
		"warnings": strconv.Itoa(warns),
		"notes":    strconv.Itoa(notes),
		"findings": string(compact),
	}); err != nil {
		return err
	}

	if errs > 0 {
		return &cli.FailedError{Msg: "validation failed"}
	}

	return nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}

	return v
}

func asFailed(err error, target **cli.FailedError) bool {
	return errors.As(err, target)
}
