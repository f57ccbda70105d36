package action

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/report"
	"github.com/talops/talops/internal/rules"
)

// InputOffline forbids asking the Image Factory about releases the embedded data lacks.
const InputOffline = "offline"

// versions explains the pull request's version bump: against the PR's base commit unless
// the base or against input names another state.
func (a *runner) versions(ctx context.Context) (*result, error) {
	ev, err := a.event()
	if err != nil {
		return nil, err
	}

	offline, err := boolInput(a.gha, InputOffline)
	if err != nil {
		return nil, err
	}

	fix, err := boolInput(a.gha, InputFixDriverPin)
	if err != nil {
		return nil, err
	}

	if fix && ev.PR == nil {
		return nil, &app.UsageError{Msg: "fix-driver-pin commits to the pull request's branch: run it on pull_request"}
	}

	opts := app.VersionsOptions{Dir: a.dir(), Base: a.gha.GetInput(InputBase), Against: a.gha.GetInput(InputAgainst), Offline: offline, FixDriverPin: fix}

	if opts.Base == "" && opts.Against == "" {
		if ev.BaseSHA == "" {
			return nil, &app.UsageError{Msg: "versions compares against the pull request's base: run it on pull_request, or set the base or against input"}
		}

		opts.Base = ev.BaseSHA
	}

	b, err := app.Versions(ctx, a.d.App(), opts)
	if err != nil {
		return nil, err
	}

	a.maskSecrets()

	md, err := report.VersionsMarkdown(b)
	if err != nil {
		return nil, err
	}

	outputs, err := versionsOutputs(b)
	if err != nil {
		return nil, err
	}

	out := &result{commands: annotations(b.Findings), log: report.VersionsSummary(b) + "\n", summary: md, outputs: outputs}

	if b.PinMoved != nil {
		out.err = a.commitPinMove(ctx, *ev.PR, *b.PinMoved, b.Talos)
	}

	if finding.HasErrors(b.Findings) {
		out.failed = "the version bump has errors"
	}

	return out, nil
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
