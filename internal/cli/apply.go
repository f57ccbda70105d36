package cli

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/report"
	"github.com/talops/talops/internal/rollout"
	"github.com/talops/talops/internal/schematic"
	"github.com/talops/talops/internal/talos"
)

// Gate defaults: how long a node may take to come back, and how often to look.
const (
	defaultGateTimeout  = 10 * time.Minute
	defaultGateInterval = 5 * time.Second
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
	Parallel     int
	Mode         string
	DryRun       bool
	Format       string
}

func runApply(ctx context.Context, d *Deps, args []string) error {
	opts := &ApplyOptions{Deps: d}

	fs := newFlags(d, "apply", "apply [--dir D] [--talosconfig F] [--plan-hash H [--reviewed-base REF]] [--parallel N] [--mode auto|no-reboot|staged|try] [--dry-run] [--format text|json]")
	fs.StringVar(&opts.Dir, "dir", ".", "repository directory holding talops.yaml")
	fs.StringVar(&opts.Talosconfig, "talosconfig", "", "talosconfig (default $TALOSCONFIG, then ~/.talos/config)")
	fs.StringVar(&opts.PlanHash, "plan-hash", "", "refuse to apply unless the plan has this hash (the one reviewed)")
	fs.StringVar(&opts.ReviewedBase, "reviewed-base", "", "with --plan-hash: check the hash on the plan against this git ref (the pull request's base), as its comment computed it")
	fs.IntVar(&opts.Parallel, "parallel", 1, "how many workers change at once (control planes: one at a time)")
	fs.StringVar(&opts.Mode, "mode", string(talos.ModeAuto), "apply mode: auto, no-reboot, staged or try")
	fs.BoolVar(&opts.DryRun, "dry-run", false, "ask each node whether it accepts its config, change nothing")
	fs.StringVar(&opts.Format, "format", report.FormatText, "output format: text or json")

	if err := parseFlags(fs, args); err != nil {
		return err
	}

	if err := oneOf("format", opts.Format, report.ApplyFormats); err != nil {
		return err
	}

	if err := oneOf("mode", opts.Mode, talos.Modes); err != nil {
		return err
	}

	if opts.Parallel < 1 {
		return &UsageError{Msg: fmt.Sprintf("--parallel must be 1 or more, got %d", opts.Parallel)}
	}

	if len(fs.Args()) > 0 {
		return &UsageError{Msg: fmt.Sprintf("apply takes no arguments, got %q", fs.Args()[0])}
	}

	if opts.ReviewedBase != "" && opts.PlanHash == "" {
		return &UsageError{Msg: "--reviewed-base goes with --plan-hash"}
	}

	return Apply(ctx, opts)
}

// RefusedError says apply refused to act: no node was changed.
type RefusedError struct{ Reasons []string }

func (e *RefusedError) Error() string {
	return "apply refused, no node was changed:\n" + strings.Join(e.Reasons, "\n")
}

// Apply plans against the running nodes, refuses what it must, then rolls the plan out
// and prints the report.
func Apply(ctx context.Context, opts *ApplyOptions) error {
	d := opts.Deps

	// Before anything is read: a pull request's code never reaches the nodes.
	if ev := d.Getenv("GITHUB_EVENT_NAME"); ev == "pull_request" || ev == "pull_request_target" {
		return &RefusedError{Reasons: []string{"apply does not run for " + ev + " events: it runs on the merged commit (push)"}}
	}

	res, err := Plan(ctx, &PlanOptions{
		Deps: d, Dir: opts.Dir, Live: true, Talosconfig: opts.Talosconfig,
		refuse: func(r *repo) error {
			if r.Bundle.Throwaway {
				return &RefusedError{Reasons: []string{"apply needs the cluster's real secrets bundle, and only a throwaway one is available (" + r.Bundle.Why + ")"}}
			}

			return nil
		},
	})
	if err != nil {
		return err
	}

	if finding.HasErrors(res.Findings) {
		var buf bytes.Buffer
		if err := report.FindingsText(&buf, res.Findings, res.Nodes); err != nil {
			return err
		}

		d.errf("%s", buf.String())

		return &RefusedError{Reasons: []string{"the desired state has errors (listed above)"}}
	}

	reviewedHash := res.Plan.Hash
	if opts.ReviewedBase != "" {
		reviewed, err := Plan(ctx, &PlanOptions{Deps: d, Dir: opts.Dir, Base: opts.ReviewedBase, Offline: true})
		if err != nil {
			return fmt.Errorf("the reviewed plan (against %s): %w", opts.ReviewedBase, err)
		}

		reviewedHash = reviewed.Plan.Hash
	}

	if reasons := refusals(res, reviewedHash, opts); len(reasons) > 0 {
		return &RefusedError{Reasons: reasons}
	}

	dialer, err := applyDialer(d, opts.Talosconfig)
	if err != nil {
		return err
	}

	todo, err := steps(res)
	if err != nil {
		return err
	}

	rep := rollout.Run(ctx, dialer, res.Plan.Cluster, res.Plan.Hash, todo, rollout.Options{
		Mode:         talos.Mode(opts.Mode),
		DryRun:       opts.DryRun,
		Parallel:     opts.Parallel,
		CallTimeout:  orDefault(d.TalosTimeout, talos.DefaultTimeout),
		GateTimeout:  orDefault(d.GateTimeout, defaultGateTimeout),
		GateInterval: orDefault(d.GateInterval, defaultGateInterval),
		// Pulling and installing an image takes as long as a node may take to come back.
		UpgradeTimeout: orDefault(d.GateTimeout, defaultGateTimeout),
	})

	var buf bytes.Buffer
	if err := report.WriteApply(&buf, opts.Format, rep); err != nil {
		return err
	}

	if err := d.out(buf.String()); err != nil {
		return err
	}

	if rep.Failed() {
		return fmt.Errorf("apply stopped at the first failure; nodes not attempted were not touched")
	}

	return nil
}

// refusals are the reasons to touch no node at all, one line each.
func refusals(res *PlanResult, reviewedHash string, opts *ApplyOptions) []string {
	var out []string

	if opts.PlanHash != "" && opts.PlanHash != reviewedHash {
		against := "the running nodes"
		if opts.ReviewedBase != "" {
			against = opts.ReviewedBase
		}

		out = append(out, fmt.Sprintf("the plan differs from the one reviewed: its hash against %s is %s, --plan-hash is %s", against, reviewedHash, opts.PlanHash))
	}

	for _, n := range res.current.Nodes {
		if n.Broken != "" {
			out = append(out, fmt.Sprintf("node %s: %s", n.Name, n.Broken))
		}
	}

	if len(out) > 0 {
		// The plan of an unreadable node says nothing true; its actions are not worth judging.
		return out
	}

	for _, n := range res.Plan.Nodes {
		switch {
		case n.Action == plan.Create:
			out = append(out, fmt.Sprintf("node %s is new: talops does not yet apply configs in maintenance mode; apply it by hand (talosctl apply-config --insecure)", n.Name))
		case n.Action == plan.Remove:
			out = append(out, fmt.Sprintf("node %s was removed from talops.yaml: talops does not reset nodes; remove it by hand, or put it back", n.Name))
		case n.Action == plan.Upgrade && opts.Mode != string(talos.ModeAuto):
			out = append(out, fmt.Sprintf("node %s needs an upgrade, which reboots it: --mode %s does not; use --mode auto", n.Name, opts.Mode))
		case n.Action == plan.Upgrade:
			if _, err := upgradeTarget(n); err != nil {
				out = append(out, err.Error())
			}
		case n.NeedsReboot && (opts.Mode == string(talos.ModeNoReboot) || opts.Mode == string(talos.ModeTry)):
			out = append(out, fmt.Sprintf("node %s: its change needs a reboot, which --mode %s cannot do; use --mode auto or staged", n.Name, opts.Mode))
		}
	}

	return out
}

// steps pairs every planned node with its address, desired config and running version.
func steps(res *PlanResult) ([]rollout.Step, error) {
	running := map[string]plan.NodeState{}
	for _, n := range res.current.Nodes {
		running[n.Name] = n
	}

	rendered := map[string][]byte{}

	for _, n := range res.head.Nodes {
		if n.Err != nil {
			return nil, fmt.Errorf("node %s does not render: %w", n.Name, n.Err)
		}

		data, err := n.Node.Bytes()
		if err != nil {
			return nil, fmt.Errorf("encode the config of node %s: %w", n.Name, err)
		}

		rendered[n.Name] = data
	}

	address := map[string]string{}
	for _, n := range res.head.Cluster.Spec.Nodes {
		address[n.Name] = n.Address
	}

	out := make([]rollout.Step, 0, len(res.Plan.Nodes))

	for _, n := range res.Plan.Nodes {
		s := rollout.Step{Node: n, Address: address[n.Name], Config: rendered[n.Name], Version: running[n.Name].TalosVersion}

		if n.Action == plan.Upgrade {
			t, err := upgradeTarget(n)
			if err != nil {
				return nil, err
			}

			s.Upgrade = t
		}

		out = append(out, s)
	}

	return out, nil
}

// upgradeTarget is what an upgraded node must run: the version and schematic of its
// desired installer image.
func upgradeTarget(n plan.Node) (*rollout.Target, error) {
	if n.Upgrade == nil {
		return nil, fmt.Errorf("node %s: the plan upgrades it but names no installer", n.Name)
	}

	ref, err := schematic.ParseInstallerImage(n.Upgrade.ToInstaller)
	if err != nil {
		return nil, fmt.Errorf("node %s: installer: %w", n.Name, err)
	}

	if ref.Tag == "" {
		return nil, fmt.Errorf("node %s: installer %s names no Talos version tag", n.Name, n.Upgrade.ToInstaller)
	}

	return &rollout.Target{Image: n.Upgrade.ToInstaller, Version: ref.Tag, SchematicID: ref.ID}, nil
}

// applyDialer dials the nodes with the talosconfig Plan has already read and masked.
func applyDialer(d *Deps, path string) (talos.Dialer, error) {
	cfg, err := loadTalosconfig(d, path)
	if err != nil {
		return nil, err
	}

	return talos.NewDialer(talos.Options{Talosconfig: cfg, Endpoint: d.TalosEndpoint})
}

func orDefault(v, def time.Duration) time.Duration {
	if v <= 0 {
		return def
	}

	return v
}
