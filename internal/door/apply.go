package door

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/report"
)

// ApplyOptions are apply's inputs.
type ApplyOptions struct {
	Deps *Deps

	// ApplyOptions are apply's own options, declared once, in the application layer; the
	// door sets their Confirm (from Yes and Deps.Prompt).
	app.ApplyOptions

	Format string
	// KubeconfigOut, when set, is where the admin kubeconfig is written once every node
	// was applied (a new cluster's first credential).
	KubeconfigOut string
	// Yes applies without asking. Without it, where Deps.Prompt can ask (a terminal),
	// apply shows the plan and applies only on the answer "yes".
	Yes bool
}

// Apply runs apply (see app.Apply) and prints its report. The result is nil when it refused.
func Apply(ctx context.Context, opts *ApplyOptions) (*app.ApplyResult, error) {
	d := opts.Deps

	// Before any node is touched: the kubeconfig is written once all were.
	if opts.KubeconfigOut != "" && !opts.DryRun {
		if err := d.RefuseExposed(opts.KubeconfigOut, false, ""); err != nil {
			return nil, fmt.Errorf("--kubeconfig-out: %w", err)
		}
	}

	own := opts.ApplyOptions
	own.Confirm = confirm(d, opts)

	out, err := app.Apply(ctx, d.App(), own)

	if err != nil {
		return nil, err
	}

	if err := d.View(func(w io.Writer) error { return report.WriteApply(w, opts.Format, out.Report) }); err != nil {
		return out, err
	}

	switch {
	case out.Report.Stopped != "":
		return out, errors.New("apply stopped before the next node: " + out.Report.Stopped + "; nodes not attempted were not touched")
	case out.Report.Unhealthy != "":
		return out, errors.New("every node was applied, then " + out.Report.Unhealthy)
	case out.Report.Failed():
		return out, errors.New("apply stopped at the first failure; nodes not attempted were not touched")
	case out.Report.Incomplete():
		// Interrupted (a cancelled job): nothing failed, but the cluster is not where main says.
		return out, errors.New("apply was interrupted before every node was handled; nodes not attempted were not touched")
	}

	if opts.KubeconfigOut != "" && !opts.DryRun {
		// A note beside the report, which stays alone on the output.
		// Checked before the rollout.
		said, err := WriteKubeconfig(ctx, &KubeconfigOptions{Deps: d, Dir: opts.Dir, Talosconfig: opts.Talosconfig, Out: opts.KubeconfigOut, Force: true})
		if err != nil {
			return out, fmt.Errorf("every node was applied, then the kubeconfig: %w", err)
		}

		d.Errf("talops: %s\n", said)
	}

	return out, nil
}

// KubeconfigOptions are kubeconfig's inputs.
type KubeconfigOptions struct {
	Deps *Deps

	Dir string
	// Talosconfig is the talosconfig ("": $TALOSCONFIG, then ~/.talos/config).
	Talosconfig string
	Out         string
	// Force writes Out even where Git would pick it up (RefuseExposed).
	Force bool
}

// WriteKubeconfig writes the kubeconfig and returns the line that says so.
func WriteKubeconfig(ctx context.Context, opts *KubeconfigOptions) (string, error) {
	d := opts.Deps

	if !opts.Force {
		if err := d.RefuseExposed(opts.Out, false, "--force"); err != nil {
			return "", err
		}
	}

	res, err := app.Kubeconfig(ctx, d.App(), opts.Dir, opts.Talosconfig)
	if err != nil {
		return "", err
	}

	if err := d.WriteFile(opts.Out, res.Data, 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", opts.Out, err)
	}

	return fmt.Sprintf("wrote %s: the admin kubeconfig of %s, from %s", opts.Out, res.Cluster, res.Node), nil
}

// confirm shows the plan on the terminal and asks, as terraform apply does; nil (apply
// without asking) with --yes or where nobody can answer (CI, a pipe).
func confirm(d *Deps, opts *ApplyOptions) func(res *app.PlanResult) error {
	if opts.Yes || d.Prompt == nil {
		return nil
	}

	return func(res *app.PlanResult) error {
		d.Errf("%s\n", report.PlanText(res.Plan, nil, res.Nodes, d.Color()))

		answer, err := d.Prompt(fmt.Sprintf("Apply this plan to %s? Only \"yes\" applies it: ", res.Plan.Cluster))
		if err != nil {
			return fmt.Errorf("ask for confirmation: %w", err)
		}

		if strings.TrimSpace(answer) != "yes" {
			return &RefusedError{Reasons: []string{"not confirmed (the answer was not \"yes\"; --yes applies without asking)"}}
		}

		return nil
	}
}
