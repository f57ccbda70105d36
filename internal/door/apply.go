package door

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/report"
	"github.com/talops/talops/internal/rollout"
)

// ApplyOptions are apply's inputs.
type ApplyOptions struct {
	Deps *Deps

	Dir string
	// Talosconfig is the talosconfig ("": $TALOSCONFIG, then ~/.talos/config).
	Talosconfig string
	// PlanHash, when set, is the hash of the reviewed plan: any other plan is refused.
	PlanHash string
	// ReviewedBase, with PlanHash, is the git ref the reviewed plan compared with (a pull
	// request's base): the hash is checked on the plan against it, the way the pull
	// request's comment computed it, instead of on the live plan.
	ReviewedBase string
	// ReviewedAgainst, with PlanHash, is a directory holding the reviewed base (checked
	// out beside the repository, for runners without git): like ReviewedBase, as plan
	// --against is like plan --base.
	ReviewedAgainst string
	// Register posts every schematic to the Image Factory (as schematics --register)
	// before any node is touched.
	Register bool
	// ProxmoxImages makes sure the boot ISOs are in Proxmox storage (as proxmox images)
	// before any node is touched; without a proxmox: section there is nothing to do.
	ProxmoxImages bool
	Parallel      int
	Mode          string
	DryRun        bool
	Format        string
	// InstallTimeout bounds the pull and install of an upgrade's image (0: 10 minutes).
	InstallTimeout time.Duration
	// EtcdBackup, NoEtcdBackup and BackupRecipients say where the etcd snapshot taken
	// before the first control-plane change goes, and who can decrypt it (app.ApplyOptions).
	EtcdBackup       string
	NoEtcdBackup     bool
	BackupRecipients []string
	// Nodes, when set, are the only nodes applied.
	Nodes []string
	// Kubeconfig, NoDrain and DrainTimeout say how the cluster's Kubernetes API is reached
	// and how nodes are drained around their disruptions (app.ApplyOptions).
	Kubeconfig   string
	NoDrain      bool
	DrainTimeout time.Duration
	// ProxmoxVMs creates the missing VMs of new nodes first (app.ApplyOptions).
	ProxmoxVMs bool
	// ProxmoxReset resets once the VM of a node that does not come back after its reboot.
	ProxmoxReset bool
	// Progress, when set, gets each node's steps as they happen (nil: a line per step
	// on stderr); ProgressDone, when set, is called once the rollout ended, before the
	// report is printed.
	Progress     func(p rollout.Progress)
	ProgressDone func()
	// KubeconfigOut, when set, is where the admin kubeconfig is written once every node
	// was applied (a new cluster's first credential).
	KubeconfigOut string
	// AllowRemove lets apply remove the nodes the plan removes (see app.ApplyOptions).
	AllowRemove bool
	// NoLock goes on without the apply lock when a running cluster's Kubernetes API does
	// not answer (see app.ApplyOptions).
	NoLock bool
	// IgnoreWindow applies outside the maintenance windows (see app.ApplyOptions).
	IgnoreWindow bool
	// Review, when set, says which plan was reviewed (see app.ApplyOptions.Review).
	Review func(ctx context.Context, cluster string) (hash, base string, err error)
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

	out, err := app.Apply(ctx, d.App(), app.ApplyOptions{
		Dir: opts.Dir, Talosconfig: opts.Talosconfig, PlanHash: opts.PlanHash,
		ReviewedBase: opts.ReviewedBase, ReviewedAgainst: opts.ReviewedAgainst,
		Register: opts.Register, ProxmoxImages: opts.ProxmoxImages,
		Parallel: opts.Parallel, Mode: opts.Mode, DryRun: opts.DryRun, Review: opts.Review,
		InstallTimeout: opts.InstallTimeout,
		EtcdBackup:     opts.EtcdBackup, NoEtcdBackup: opts.NoEtcdBackup, BackupRecipients: opts.BackupRecipients,
		Nodes:      opts.Nodes,
		Kubeconfig: opts.Kubeconfig, NoDrain: opts.NoDrain, DrainTimeout: opts.DrainTimeout,
		ProxmoxReset: opts.ProxmoxReset, ProxmoxVMs: opts.ProxmoxVMs,
		Progress:    opts.Progress,
		AllowRemove: opts.AllowRemove, NoLock: opts.NoLock, IgnoreWindow: opts.IgnoreWindow,
		Confirm: confirm(d, opts),
	})
	if opts.ProgressDone != nil {
		opts.ProgressDone()
	}

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
