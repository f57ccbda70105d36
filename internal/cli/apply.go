package cli

import (
	"context"
	"fmt"
	"github.com/talops/talops/internal/door"
	"strings"
	"time"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/report"
	"github.com/talops/talops/internal/rollout"
	"github.com/talops/talops/internal/talos"
)

// ApplyOptions are apply's inputs (shared with the action: see door.ApplyOptions).
type ApplyOptions = door.ApplyOptions

func applyFlags(d *Deps, args []string) (*ApplyOptions, error) {
	opts := &ApplyOptions{Deps: d}

	fs := newFlags(d, "apply", "apply [--dir D] [--talosconfig F] [--plan-hash H [--reviewed-base REF | --reviewed-against DIR]] [--register] [--proxmox-images] [--proxmox-vms] [--parallel N] [--mode auto|no-reboot|staged|try] [--dry-run] [--install-timeout D] [--etcd-backup DIR | --no-etcd-backup] [--etcd-backup-recipient R] [--nodes a,b] [--kubeconfig F] [--drain-timeout D] [--no-drain] [--proxmox-reset] [--rollback] [--allow-remove] [--no-lock] [--ignore-window] [--kubeconfig-out FILE] [--yes] [--format text|json]")
	fs.StringVar(&opts.Dir, "dir", ".", "repository directory holding talops.yaml")
	fs.StringVar(&opts.Talosconfig, "talosconfig", "", "talosconfig (default $TALOSCONFIG, then ~/.talos/config)")
	fs.StringVar(&opts.PlanHash, "plan-hash", "", "refuse to apply unless the plan has this hash (the one reviewed)")
	fs.StringVar(&opts.ReviewedBase, "reviewed-base", "", "with --plan-hash: check the hash on the plan against this git ref (the pull request's base), as its comment computed it")
	fs.StringVar(&opts.ReviewedAgainst, "reviewed-against", "", "with --plan-hash: check the hash on the plan against this directory (the pull request's base, checked out), as its comment computed it")
	fs.BoolVar(&opts.Register, "register", false, "first post every schematic to the Image Factory and refuse if it gives another ID")
	fs.BoolVar(&opts.ProxmoxImages, "proxmox-images", false, "first make sure the boot ISOs are in Proxmox storage (skipped without a proxmox: section)")
	fs.IntVar(&opts.Parallel, "parallel", 1, "how many workers change at once (control planes: one at a time)")
	fs.StringVar(&opts.Mode, "mode", "", "apply mode: auto, no-reboot, staged or try (default: talops.yaml's apply.mode, else auto)")
	fs.BoolVar(&opts.DryRun, "dry-run", false, "ask each node whether it accepts its config, change nothing")
	fs.StringVar(&opts.Format, "format", report.FormatText, "output format: text or json")
	fs.DurationVar(&opts.InstallTimeout, "install-timeout", 10*time.Minute, "how long an upgrade's pull and install may take on a node")
	fs.StringVar(&opts.EtcdBackup, "etcd-backup", "", "directory for the age-encrypted etcd snapshot taken before the first control-plane change (default: $XDG_STATE_HOME/talops/etcd-backups)")
	fs.BoolVar(&opts.NoEtcdBackup, "no-etcd-backup", false, "take no etcd snapshot")
	fs.Func("etcd-backup-recipient", "age recipient the etcd snapshot is encrypted to, repeatable (default: the recipients of the SOPS secrets file)", func(v string) error {
		opts.BackupRecipients = append(opts.BackupRecipients, v)

		return nil
	})
	fs.Func("nodes", "apply only these nodes, comma-separated: names of talops.yaml, hostnames or addresses (the plan hash still covers every node)", func(v string) error {
		for _, name := range strings.Split(v, ",") {
			if name = strings.TrimSpace(name); name != "" {
				opts.Nodes = append(opts.Nodes, name)
			}
		}

		return nil
	})
	fs.StringVar(&opts.Kubeconfig, "kubeconfig", "", "kubeconfig of the cluster's Kubernetes API, to drain nodes and take the apply lock (default: the admin kubeconfig, read from a control plane over the Talos API)")
	fs.DurationVar(&opts.DrainTimeout, "drain-timeout", rollout.DefaultDrainTimeout, "how long a node's drain may take before the rollout stops with that node untouched")
	fs.BoolVar(&opts.NoDrain, "no-drain", false, "reboot and upgrade nodes without draining them (the apply lock is still taken)")
	fs.BoolVar(&opts.ProxmoxVMs, "proxmox-vms", false, "first create the missing VMs of nodes from their proxmox: spec, start them and wait for them to boot into maintenance mode (existing VMs are never changed)")
	fs.BoolVar(&opts.ProxmoxReset, "proxmox-reset", false, "reset, once, the Proxmox VM of a node that does not come back healthy after a reboot or upgrade, then wait for it again")
	fs.BoolVar(&opts.Rollback, "rollback", false, "roll a node whose health gate fails after an upgrade back to the Talos it ran before (Talos' rollback), wait for its gate, then stop the rollout")
	fs.BoolVar(&opts.AllowRemove, "allow-remove", false, "remove the nodes the plan removes (not in talops.yaml): drain, graceful reset, delete their Kubernetes Node; without it such a plan is refused")
	fs.BoolVar(&opts.IgnoreWindow, "ignore-window", false, "apply outside the maintenance windows of talops.yaml (an emergency; the report records it). Without it such an apply changes nothing and exits with code 3")
	fs.BoolVar(&opts.NoLock, "no-lock", false, "go on without the apply lock (and drains) when the Kubernetes API of a running cluster does not answer; the report records it. Without it such an apply is refused")
	fs.BoolVar(&opts.Yes, "yes", false, "apply without showing the plan and asking first (it is only asked on a terminal)")
	fs.StringVar(&opts.KubeconfigOut, "kubeconfig-out", "", "once every node was applied, write the admin kubeconfig to this file (mode 0600)")

	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}

	if err := checkApplyFlags(opts); err != nil {
		return nil, err
	}

	return opts, nil
}

// checkApplyFlags refuses the flags of apply that cannot go together or are out of range.
func checkApplyFlags(opts *ApplyOptions) error {
	if opts.NoEtcdBackup && (opts.EtcdBackup != "" || len(opts.BackupRecipients) > 0) {
		return &app.UsageError{Msg: "--no-etcd-backup cannot be used with --etcd-backup or --etcd-backup-recipient"}
	}

	if opts.KubeconfigOut == "-" {
		return &app.UsageError{Msg: "--kubeconfig-out -: the admin kubeconfig is only written to a file (mode 0600), never to the output"}
	}

	if opts.DrainTimeout <= 0 {
		return &app.UsageError{Msg: fmt.Sprintf("--drain-timeout must be positive, got %s", opts.DrainTimeout)}
	}

	if opts.InstallTimeout <= 0 {
		return &app.UsageError{Msg: fmt.Sprintf("--install-timeout must be positive, got %s", opts.InstallTimeout)}
	}

	if err := oneOf("format", opts.Format, report.ApplyFormats); err != nil {
		return err
	}

	if opts.Mode != "" {
		if err := oneOf("mode", opts.Mode, talos.Modes); err != nil {
			return err
		}
	}

	if opts.Parallel < 1 {
		return &app.UsageError{Msg: fmt.Sprintf("--parallel must be 1 or more, got %d", opts.Parallel)}
	}

	if opts.ReviewedBase != "" && opts.ReviewedAgainst != "" {
		return &app.UsageError{Msg: "--reviewed-base and --reviewed-against cannot be used together"}
	}

	if (opts.ReviewedBase != "" || opts.ReviewedAgainst != "") && opts.PlanHash == "" {
		return &app.UsageError{Msg: "--reviewed-base and --reviewed-against go with --plan-hash"}
	}

	return nil
}

func runApply(ctx context.Context, d *Deps, args []string) error {
	opts, err := applyFlags(d, args)
	if err != nil {
		return err
	}

	_, err = Apply(ctx, opts)

	return err
}

// Apply runs apply and prints its report (see door.Apply).
func Apply(ctx context.Context, opts *ApplyOptions) (*app.ApplyResult, error) {
	return door.Apply(ctx, opts)
}
