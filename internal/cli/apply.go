package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/report"
	"github.com/talops/talops/internal/rollout"
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
}

// ApplyResult is what an apply did: the steps before the rollout, then the rollout.
type ApplyResult struct {
	// Registered is true when every schematic was registered with the factory.
	Registered bool
	// Images is the boot image check (nil when not asked or skipped).
	Images *report.ProxmoxImages
	Report *rollout.Report
}

func runApply(ctx context.Context, d *Deps, args []string) error {
	opts := &ApplyOptions{Deps: d}

	fs := newFlags(d, "apply", "apply [--dir D] [--talosconfig F] [--plan-hash H [--reviewed-base REF | --reviewed-against DIR]] [--register] [--proxmox-images] [--parallel N] [--mode auto|no-reboot|staged|try] [--dry-run] [--format text|json]")
	fs.StringVar(&opts.Dir, "dir", ".", "repository directory holding talops.yaml")
	fs.StringVar(&opts.Talosconfig, "talosconfig", "", "talosconfig (default $TALOSCONFIG, then ~/.talos/config)")
	fs.StringVar(&opts.PlanHash, "plan-hash", "", "refuse to apply unless the plan has this hash (the one reviewed)")
	fs.StringVar(&opts.ReviewedBase, "reviewed-base", "", "with --plan-hash: check the hash on the plan against this git ref (the pull request's base), as its comment computed it")
	fs.StringVar(&opts.ReviewedAgainst, "reviewed-against", "", "with --plan-hash: check the hash on the plan against this directory (the pull request's base, checked out), as its comment computed it")
	fs.BoolVar(&opts.Register, "register", false, "first post every schematic to the Image Factory and refuse if it gives another ID")
	fs.BoolVar(&opts.ProxmoxImages, "proxmox-images", false, "first make sure the boot ISOs are in Proxmox storage (skipped without a proxmox: section)")
	fs.IntVar(&opts.Parallel, "parallel", 1, "how many workers change at once (control planes: one at a time)")
	fs.StringVar(&opts.Mode, "mode", string(talos.ModeAuto), "apply mode: auto, no-reboot, staged or try")
	fs.BoolVar(&opts.DryRun, "dry-run", false, "ask each node whether it accepts its config, change nothing")
	fs.StringVar(&opts.Format, "format", report.FormatText, "output format: text or json")

	if err := parseNoArgs(fs, args); err != nil {
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

	if opts.ReviewedBase != "" && opts.ReviewedAgainst != "" {
		return &UsageError{Msg: "--reviewed-base and --reviewed-against cannot be used together"}
	}

	if (opts.ReviewedBase != "" || opts.ReviewedAgainst != "") && opts.PlanHash == "" {
		return &UsageError{Msg: "--reviewed-base and --reviewed-against go with --plan-hash"}
	}

	_, err := Apply(ctx, opts)

	return err
}

// RefusedError says apply refused to act: no node was changed. Err, when set, is the
// failure that made it refuse (kept for errors.As: an input error names its file).
type RefusedError struct {
	Reasons []string
	Err     error
}

func (e *RefusedError) Error() string {
	reasons := e.Reasons
	if e.Err != nil {
		reasons = append(slices.Clone(reasons), e.Err.Error())
	}

	return "apply refused, no node was changed:\n" + strings.Join(reasons, "\n")
}

func (e *RefusedError) Unwrap() error { return e.Err }

// Apply plans against the running nodes, refuses what it must, prepares what was asked
// (schematics, boot images), then rolls the plan out and prints the report. The result
// is nil when it refused.
func Apply(ctx context.Context, opts *ApplyOptions) (*ApplyResult, error) {
	d := opts.Deps

	// Before anything is read: a pull request's code never reaches the nodes.
	// Only events that run the default branch's own code may reach the nodes: an allowlist,
	// since pull requests arrive under several names (pull_request_target, issue_comment,
	// workflow_run, merge_group…).
	if why := rollout.EventRefusal(d.Getenv("GITHUB_EVENT_NAME")); why != "" {
		return nil, &RefusedError{Reasons: []string{why}}
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
		return nil, err
	}

	if finding.HasErrors(res.Findings) {
		var buf bytes.Buffer
		if err := report.FindingsText(&buf, res.Findings, res.Nodes); err != nil {
			return nil, err
		}

		d.errf("%s", buf.String())

		return nil, &RefusedError{Reasons: []string{"the desired state has errors (listed above)"}}
	}

	reviewedHash := res.Plan.Hash

	var reviewedPlan *plan.Plan
	if reviewedBase := opts.ReviewedBase + opts.ReviewedAgainst; reviewedBase != "" {
		reviewed, err := Plan(ctx, &PlanOptions{Deps: d, Dir: opts.Dir, Base: opts.ReviewedBase, Against: opts.ReviewedAgainst, Offline: true})
		if err != nil {
			return nil, fmt.Errorf("the reviewed plan (against %s): %w", reviewedBase, err)
		}

		reviewedHash, reviewedPlan = reviewed.Plan.Hash, reviewed.Plan

		// The reviewed plan's findings include the version path (a skipped floor, a
		// downgrade) that the live plan cannot judge: a merge past them is still refused.
		if finding.HasErrors(reviewed.Findings) {
			var buf bytes.Buffer
			if err := report.FindingsText(&buf, reviewed.Findings, reviewed.Nodes); err != nil {
				return nil, err
			}

			d.errf("%s", buf.String())

			return nil, &RefusedError{Reasons: []string{"the reviewed plan (against " + reviewedBase + ") has errors (listed above)"}}
		}
	}

	reasons := rollout.Refusals(rollout.Preflight{
		Live: res.Plan, Running: res.current.Nodes, TargetVersion: res.head.Cluster.Spec.TalosVersion,
		Mode: rollout.Mode(opts.Mode), PlanHash: opts.PlanHash, ReviewedHash: reviewedHash,
		ReviewedAgainst: opts.ReviewedBase + opts.ReviewedAgainst, Reviewed: reviewedPlan,
	})

	if len(reasons) > 0 {
		return nil, &RefusedError{Reasons: reasons}
	}

	dialer, err := applyDialer(d, opts.Talosconfig)
	if err != nil {
		return nil, err
	}

	todo, err := steps(res)
	if err != nil {
		return nil, err
	}

	out, err := prepare(ctx, opts, res.head.Cluster)
	if err != nil {
		return nil, err
	}

	out.Report = rollout.Run(ctx, dialer, res.Plan.Cluster, res.Plan.Hash, todo, rollout.Options{
		Mode:         talos.Mode(opts.Mode),
		DryRun:       opts.DryRun,
		Parallel:     opts.Parallel,
		CallTimeout:  orDefault(d.TalosTimeout, talos.DefaultTimeout),
		GateTimeout:  orDefault(d.GateTimeout, defaultGateTimeout),
		GateInterval: orDefault(d.GateInterval, defaultGateInterval),
		// Pulling and installing an image takes as long as a node may take to come back.
		UpgradeTimeout: orDefault(d.GateTimeout, defaultGateTimeout),
	})

	if err := d.view(func(w io.Writer) error { return report.WriteApply(w, opts.Format, out.Report) }); err != nil {
		return out, err
	}

	switch {
	case out.Report.Failed():
		return out, fmt.Errorf("apply stopped at the first failure; nodes not attempted were not touched")
	case out.Report.Incomplete():
		// Interrupted (a cancelled job): nothing failed, but the cluster is not where main says.
		return out, fmt.Errorf("apply was interrupted before every node was handled; nodes not attempted were not touched")
	}

	return out, nil
}

// prepare does what the nodes need from outside before any of them is touched: the
// factory knows every schematic, and Proxmox storage holds the boot images. Its notes go
// to stderr, so that stdout stays the apply report. A failure refuses the apply.
func prepare(ctx context.Context, opts *ApplyOptions, c *cluster.Cluster) (*ApplyResult, error) {
	d := opts.Deps
	out := &ApplyResult{}

	if opts.Register {
		// Registering is idempotent (the factory keys schematics by content), so a dry
		// run registers too: it is how the IDs in the installers are checked.
		if err := registerSchematics(ctx, d, c); err != nil {
			return nil, &RefusedError{Reasons: []string{"the schematics could not be registered with the Image Factory:"}, Err: err}
		}

		out.Registered = true
		d.errf("registered %d schematics with %s: the factory gives the IDs talops computed\n", len(c.Spec.Schematics), c.ImageFactory())
	}

	if !opts.ProxmoxImages {
		return out, nil
	}

	if c.Spec.ProxmoxAPI == nil {
		d.errf("boot images: skipped, talops.yaml has no proxmox: section\n")

		return out, nil
	}

	images, err := ProxmoxImages(ctx, &ProxmoxImagesOptions{Deps: d, Dir: opts.Dir, DryRun: opts.DryRun})
	if err != nil {
		return nil, &RefusedError{Reasons: []string{"the boot images in Proxmox storage could not be checked:"}, Err: err}
	}

	var buf bytes.Buffer
	if err := report.WriteProxmoxImages(&buf, report.FormatText, images); err != nil {
		return nil, err
	}

	d.errf("%s", buf.String())

	out.Images = images

	if images.Summary.Failed > 0 {
		return nil, &RefusedError{Reasons: []string{"some boot images could not be put in Proxmox storage (listed above)"}}
	}

	return out, nil
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

// steps pairs every planned node with its address, desired config and running version.
func steps(res *PlanResult) ([]rollout.Step, error) {
	address := map[string]string{}
	for _, n := range res.head.Cluster.Spec.Nodes {
		address[n.Name] = n.Address
	}

	desired := make([]rollout.Desired, 0, len(res.head.Nodes))

	for _, n := range res.head.Nodes {
		if n.Err != nil {
			return nil, fmt.Errorf("node %s does not render: %w", n.Name, n.Err)
		}

		data, err := n.Node.Bytes()
		if err != nil {
			return nil, fmt.Errorf("encode the config of node %s: %w", n.Name, err)
		}

		desired = append(desired, rollout.Desired{Name: n.Name, Address: address[n.Name], Config: data})
	}

	return rollout.Steps(res.Plan, res.current.Nodes, desired)
}
