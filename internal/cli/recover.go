package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/backup"
	"github.com/talops/talops/internal/door"
	"github.com/talops/talops/internal/report"
)

// RecoverOptions are recover's inputs.
type RecoverOptions struct {
	Deps *Deps

	// RecoverOptions are recover's own options, declared once, in the application layer.
	app.RecoverOptions

	// Yes recovers without showing the plan and asking first.
	Yes    bool
	Format string
	// KubeconfigOut, when set, is where the admin kubeconfig is written once the cluster
	// is back.
	KubeconfigOut string
}

func recoverFlags(d *Deps, args []string) (*RecoverOptions, error) {
	opts := &RecoverOptions{Deps: d}

	fs := newFlags(d, "recover", "recover [--dir D] [--talosconfig F] [--from DEST] [--s3-endpoint URL] [--s3-region R] [--backup NAME | --latest] [--node NAME] [--yes] [--kubeconfig-out FILE] [--format text|json]")
	placeFlags(fs, &opts.Dir, &opts.S3)
	fs.StringVar(&opts.Talosconfig, "talosconfig", "", "talosconfig (default $TALOSCONFIG, then ~/.talos/config)")
	fs.StringVar(&opts.From, "from", "", "where the backups are: "+destinationHelp)
	fs.StringVar(&opts.Backup, "backup", "", "the backup to restore (default: the newest)")
	fs.BoolVar(&opts.Latest, "latest", false, "restore the newest backup")
	fs.StringVar(&opts.Node, "node", "", "bring back this one lost control plane into the etcd that kept quorum (no backup is restored)")
	fs.BoolVar(&opts.Yes, "yes", false, "recover without asking first (without it, only a terminal is asked; elsewhere the plan is only shown)")
	fs.StringVar(&opts.Format, "format", report.FormatText, "output format: text or json")
	fs.StringVar(&opts.KubeconfigOut, "kubeconfig-out", "", "once the cluster is back, write its admin kubeconfig to this file (mode 0600)")

	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}

	if err := oneOf("format", opts.Format, report.RecoveryFormats); err != nil {
		return nil, err
	}

	if opts.Latest && opts.Backup != "" {
		return nil, &app.UsageError{Msg: "--latest and --backup cannot go together"}
	}

	if opts.KubeconfigOut == "-" {
		return nil, &app.UsageError{Msg: "--kubeconfig-out -: the admin kubeconfig is only written to a file (mode 0600), never to the output"}
	}

	return opts, nil
}

func runRecover(ctx context.Context, d *Deps, args []string) error {
	opts, err := recoverFlags(d, args)
	if err != nil {
		return err
	}

	return Recover(ctx, opts)
}

// Recover plans a recovery, asks on a terminal (only shows the plan elsewhere, unless
// --yes), runs it, and prints what it did.
func Recover(ctx context.Context, opts *RecoverOptions) error {
	d := opts.Deps

	// Before anything changes: the kubeconfig is written once the cluster is back.
	if opts.KubeconfigOut != "" {
		if err := d.RefuseExposed(opts.KubeconfigOut, false, ""); err != nil {
			return fmt.Errorf("--kubeconfig-out: %w", err)
		}
	}

	o := opts.RecoverOptions
	o.Confirm = confirmRecovery(d, opts)

	res, err := app.Recover(ctx, d.App(), o)
	if err != nil {
		return err
	}

	if !res.Ran && opts.Format == report.FormatText {
		d.Errf("nothing was changed: run recover again with --yes to recover, or on a terminal to be asked\n")
	}

	if err := d.View(func(w io.Writer) error {
		return report.WriteRecovery(w, opts.Format, report.RecoveryView{Plan: res.Plan, Ran: res.Ran, Took: res.Took})
	}); err != nil {
		return err
	}

	if !res.Ran || opts.KubeconfigOut == "" {
		return nil
	}

	said, err := door.WriteKubeconfig(ctx, &KubeconfigOptions{Deps: d, Dir: opts.Dir, Talosconfig: opts.Talosconfig, Out: opts.KubeconfigOut, Force: true})
	if err != nil {
		return fmt.Errorf("the cluster is back, then the kubeconfig: %w", err)
	}

	d.Errf("talops: %s\n", said)

	return nil
}

// confirmRecovery shows the plan and asks on a terminal; without a terminal and without
// --yes, the plan is only shown.
func confirmRecovery(d *Deps, opts *RecoverOptions) func(backup.RecoveryPlan) error {
	if opts.Yes {
		return nil
	}

	return func(p backup.RecoveryPlan) error {
		if d.Prompt == nil {
			return app.ErrNotConfirmed
		}

		d.Errf("%s", report.RecoveryText(report.RecoveryView{Plan: p}))

		answer, err := d.Prompt(fmt.Sprintf("Recover %s as planned? Only \"yes\" goes on: ", p.Cluster))
		if err != nil {
			return fmt.Errorf("ask for confirmation: %w", err)
		}

		if strings.TrimSpace(answer) != "yes" {
			return &app.RefusedRecoveryError{Reason: "not confirmed (the answer was not \"yes\"; --yes recovers without asking)"}
		}

		return nil
	}
}
