package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/report"
	"github.com/talops/talops/internal/rules"
	"github.com/talops/talops/internal/secrets"
	"github.com/talops/talops/internal/talos"
)

// PlanOptions are plan's inputs.
type PlanOptions struct {
	Deps *Deps

	Dir     string
	Base    string
	Against string
	Live    bool
	// Talosconfig is the talosconfig for --live ("": $TALOSCONFIG, then ~/.talos/config).
	Talosconfig string
	Format      string
	// DetailedExitCode makes changes exit 2.
	DetailedExitCode bool
	// Offline forbids asking the Image Factory about releases the embedded data lacks.
	Offline bool

	// refuse, when set, vets the loaded desired state before any node is read (apply
	// refuses a throwaway bundle there).
	refuse func(*repo) error
}

// PlanResult is a plan with the findings of the desired state.
type PlanResult struct {
	Plan     *plan.Plan
	Findings []finding.Finding
	Nodes    int
	// Bump explains the version changes between the two states.
	Bump *rules.Bump

	// head is the desired state and current the state planned against (for apply).
	head    *repo
	current plan.State
}

func runPlan(ctx context.Context, d *Deps, args []string) error {
	opts := &PlanOptions{Deps: d}

	fs := newFlags(d, "plan", "plan [--dir D] (--base REF | --against DIR | --live [--talosconfig FILE]) [--format text|json|markdown] [--detailed-exitcode]")
	fs.StringVar(&opts.Dir, "dir", ".", "repository directory holding talops.yaml")
	fs.StringVar(&opts.Base, "base", "", "git ref of the current state (for a pull request: its base SHA)")
	fs.StringVar(&opts.Against, "against", "", "directory holding the current state")
	fs.BoolVar(&opts.Live, "live", false, "read the current state from the nodes over the Talos API")
	fs.StringVar(&opts.Talosconfig, "talosconfig", "", "talosconfig for --live (default $TALOSCONFIG, then ~/.talos/config)")
	fs.StringVar(&opts.Format, "format", report.FormatText, "output format: text, json or markdown")
	fs.BoolVar(&opts.DetailedExitCode, "detailed-exitcode", false, "exit 0 without changes, 2 with changes, 1 on errors")
	fs.BoolVar(&opts.Offline, "offline", false, "never ask the Image Factory about a Talos release the embedded data lacks")

	if err := parseNoArgs(fs, args); err != nil {
		return err
	}

	if err := oneOf("format", opts.Format, report.PlanFormats); err != nil {
		return err
	}

	res, err := Plan(ctx, opts)
	if err != nil {
		return err
	}

	view := report.PlanView{Color: d.IsTerminal != nil && d.IsTerminal(), Version: Version, Sections: res.Sections()}
	if err := d.view(func(w io.Writer) error {
		return report.WritePlan(w, opts.Format, res.Plan, res.Findings, res.Nodes, view)
	}); err != nil {
		return err
	}

	switch {
	case finding.HasErrors(res.Findings):
		return &FailedError{Msg: "the desired state has errors"}
	case opts.DetailedExitCode && res.Plan.HasChanges():
		return &ChangesError{}
	}

	return nil
}

// Plan renders both states, validates the desired one and computes the plan.
func Plan(ctx context.Context, opts *PlanOptions) (*PlanResult, error) {
	d := opts.Deps

	var dialer talos.Dialer

	switch {
	case opts.Live && (opts.Base != "" || opts.Against != ""):
		return nil, &UsageError{Msg: "--live cannot be used with --base or --against"}
	case opts.Live:
		// The talosconfig is read first, so its key is masked before anything is printed.
		cfg, err := loadTalosconfig(d, opts.Talosconfig)
		if err != nil {
			return nil, err
		}

		if dialer, err = talos.NewDialer(talos.Options{Talosconfig: cfg, Endpoint: d.TalosEndpoint}); err != nil {
			return nil, err
		}
	case opts.Base == "" && opts.Against == "":
		return nil, &UsageError{Msg: "plan needs the current state: --base REF, --against DIR or --live"}
	}

	head, err := loadRepo(ctx, d, opts.Dir)
	if err != nil {
		return nil, err
	}

	if opts.refuse != nil {
		if err := opts.refuse(head); err != nil {
			return nil, err
		}
	}

	headInput := versionsInput(ctx, d, head, opts.Offline)
	findings := rules.Check(headInput)

	var (
		base *repo
		res  *PlanResult
	)

	if opts.Live {
		res = &PlanResult{Findings: findings, Nodes: len(head.Nodes)}
	} else {
		if base, err = loadOther(ctx, d, opts.Dir, opts.Base, opts.Against, head); err != nil {
			return nil, err
		}

		bump := rules.CompareVersions(versionsInput(ctx, d, base, opts.Offline), headInput)
		res = &PlanResult{Findings: merge(findings, bump.Findings), Nodes: len(head.Nodes), Bump: bump}
	}

	if finding.HasErrors(findings) {
		// No plan for a desired state with errors; the findings and the version bump (the
		// reason for many such pull requests) still say what the change does.
		res.Plan = plan.BlockedPlan(head.Cluster.Spec.Cluster.Name)

		return res, nil
	}

	var current plan.State

	if opts.Live {
		current = liveState(ctx, d, head, dialer)
	} else if current, err = planState(base, true); err != nil {
		return nil, fmt.Errorf("current state: %w", err)
	}

	desired, err := planState(head, false)
	if err != nil {
		return nil, fmt.Errorf("desired state: %w", err)
	}

	res.head, res.current = head, current

	if res.Plan, err = plan.Compute(head.Cluster.Spec.Cluster.Name, current, desired, d.Masker()); err != nil {
		return nil, err
	}

	return res, nil
}

// merge adds the findings of the bump b to those of the new state a. The bump repeats some
// of them, or says them better (a broken driver pin with the drivers before and after): a
// finding of b replaces the one of a at the same place with the same code.
func merge(a, b []finding.Finding) []finding.Finding {
	samePlace := func(x, y finding.Finding) bool {
		return x.Code == y.Code && x.Node == y.Node && x.File == y.File && x.Line == y.Line && x.Path == y.Path
	}

	out := slices.Clone(b)

	for _, f := range a {
		if !slices.ContainsFunc(b, func(g finding.Finding) bool { return samePlace(f, g) }) {
			out = append(out, f)
		}
	}

	finding.Sort(out)

	return out
}

// Sections are the extra markdown sections of a plan: the version bump, when there is one.
func (r *PlanResult) Sections() []string {
	if r.Bump == nil || !bumped(r.Bump) {
		return nil
	}

	s, err := report.VersionsSection(r.Bump)
	if err != nil {
		return nil
	}

	return []string{s}
}

func planState(r *repo, current bool) (plan.State, error) {
	s := plan.State{TalosVersion: r.Cluster.Spec.TalosVersion, KubernetesVersion: r.Cluster.Spec.KubernetesVersion, SecretsFingerprint: fingerprint(r.Bundle)}

	for _, n := range r.Nodes {
		if n.Err != nil {
			if !current {
				return s, fmt.Errorf("node %s does not render: %w", n.Name, n.Err)
			}

			// A pull request may fix a node the base cannot render: plan it without a comparison.
			broken, _, _ := strings.Cut(n.Err.Error(), "\n")
			s.Nodes = append(s.Nodes, plan.NodeState{Name: n.Name, Broken: "it does not render: " + broken})

			continue
		}

		s.Nodes = append(s.Nodes, plan.NodeState{
			Name:      n.Name,
			Role:      n.Node.Node.Role,
			Schematic: n.Node.Node.Schematic,
			Installer: n.Node.Installer,
			Config:    n.Node.Config,
		})
	}

	return s, nil
}

// fingerprint identifies a bundle without revealing it.
func fingerprint(b *secrets.Bundle) string {
	sum := sha256.Sum256([]byte(strings.Join(b.Values(), "\x00")))

	return hex.EncodeToString(sum[:])
}

// bumped reports whether a version, a GPU driver or an extension image moves.
func bumped(b *rules.Bump) bool {
	if b.Talos.Changed() || b.Kubernetes.Changed() || len(b.Extensions) > 0 {
		return true
	}

	return slices.ContainsFunc(b.GPUNodes, func(g rules.GPUChange) bool {
		return g.Driver.Changed() || g.Toolkit.Changed()
	})
}
