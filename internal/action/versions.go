package action

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/report"
	"github.com/talops/talops/internal/rules"
)

// InputOffline forbids asking the Image Factory about releases the embedded data lacks.
const InputOffline = "offline"

// versions explains the pull request's version bump: against the PR's base commit unless
// the base or against input names another state.
func (a *runner) versions(ctx context.Context) error {
	ev, err := a.event()
	if err != nil {
		return err
	}

	offline, err := boolInput(a.gha, InputOffline)
	if err != nil {
		return err
	}

	opts := &cli.VersionsOptions{
		Deps:    a.d,
		Dir:     orDefault(a.gha.GetInput(InputDir), "."),
		Base:    a.gha.GetInput(InputBase),
		Against: a.gha.GetInput(InputAgainst),
		Format:  report.FormatMarkdown,
		Offline: offline,
	}

	if opts.Base == "" && opts.Against == "" {
		if ev.BaseSHA == "" {
			return &cli.UsageError{Msg: "versions compares against the pull request's base: run it on pull_request, or set the base or against input"}
		}

		opts.Base = ev.BaseSHA
	}

	b, err := cli.Versions(ctx, opts)
	if err != nil {
		return err
	}

	a.maskSecrets()

	var out strings.Builder

	out.WriteString(annotations(b.Findings))

	out.WriteString(report.VersionsSummary(b) + "\n")

	if _, err := a.d.Stdout.Write([]byte(a.d.Masker().String(out.String()))); err != nil {
		return err
	}

	md, err := report.VersionsMarkdown(b)
	if err != nil {
		return err
	}

	if err := a.summary(md); err != nil {
		return err
	}

	outputs, err := versionsOutputs(b)
	if err != nil {
		return err
	}

	if err := a.outputs(outputs); err != nil {
		return err
	}

	if finding.HasErrors(b.Findings) {
		return &cli.FailedError{Msg: "the version bump has errors"}
	}

	return nil
}

func versionsOutputs(b *rules.Bump) (map[string]string, error) {
	errs, warns, notes := finding.Count(b.Findings)

	fs, err := json.Marshal(b.Findings)
	if err != nil {
		return nil, err
	}

	gpus := b.GPUNodes
	if gpus == nil {
		gpus = []rules.GPUChange{}
	}

	drivers, err := json.Marshal(gpus)
	if err != nil {
		return nil, err
	}

	upgrade := "none"
	if b.Upgrade != nil {
		upgrade = b.Upgrade.Verdict
	}

	return map[string]string{
		"errors":          strconv.Itoa(errs),
		"warnings":        strconv.Itoa(warns),
		"notes":           strconv.Itoa(notes),
		"findings":        string(fs),
		"talos-from":      b.Talos.From,
		"talos-to":        b.Talos.To,
		"kubernetes-from": b.Kubernetes.From,
		"kubernetes-to":   b.Kubernetes.To,
		"upgrade":         upgrade,
		"gpu-nodes":       string(drivers),
	}, nil
}
