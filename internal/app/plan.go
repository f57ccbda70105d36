package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/mask"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/rules"
	"github.com/talops/talops/internal/secrets"
	"github.com/talops/talops/internal/talos"
)

// PlanOptions are what a plan compares: the repository in Dir against the same directory
// at Base, the directory Against, or the running nodes (Live).
type PlanOptions struct {
	Dir     string
	Base    string
	Against string
	Live    bool
	// Talosconfig is the talosconfig for Live ("": $TALOSCONFIG, then ~/.talos/config).
	Talosconfig string
	// Offline forbids asking the Image Factory about releases the embedded data lacks.
	Offline bool
	// Kubeconfig, for Live, is the kubeconfig file of the Kubernetes API asked for the
	// cluster's nodes ("": the admin kubeconfig of a control plane, when Deps.Kube is set).
	Kubeconfig string

	// chunk is how many nodes a plan against another state takes at a time (0: planChunk).
	chunk int
}

// PlanResult is a plan with the findings of the desired state.
type PlanResult struct {
	Plan     *plan.Plan
	Findings []finding.Finding
	Nodes    int
	// Bump explains the version changes between the two states (nil against the nodes).
	Bump *rules.Bump
}

// planned is what a plan was computed from: the desired state, and the state it was
// planned against.
type planned struct {
	head    *Repo
	current plan.State
	// window is what an apply outside the maintenance windows records ("" inside one).
	window string
	// choices are an apply's options, given and declared.
	choices choices
}

// Plan renders both states, validates the desired one and computes the plan.
func Plan(ctx context.Context, d *Deps, opts PlanOptions) (*PlanResult, error) {
	dialer, err := planDialer(d, opts)
	if err != nil {
		return nil, err
	}

	if !opts.Live {
		return planStreamed(ctx, d, opts)
	}

	head, err := Load(ctx, d, opts.Dir)
	if err != nil {
		return nil, err
	}

	res, _, err := planFrom(ctx, d, opts, head, dialer)
	if err != nil {
		return res, err
	}

	res.Findings = append(res.Findings, vmFindings(ctx, d, opts.Dir, head.Cluster)...)
	finding.Sort(res.Findings)

	return res, nil
}

// planDialer checks which current state opts name and, for the running nodes, reads the
// talosconfig first, so that its key is masked before anything is printed.
func planDialer(d *Deps, opts PlanOptions) (talos.Dialer, error) {
	switch {
	case opts.Live && (opts.Base != "" || opts.Against != ""):
		return nil, &UsageError{Msg: "--live cannot be used with --base or --against"}
	case opts.Live:
		return dialer(d, opts.Talosconfig)
	case opts.Base == "" && opts.Against == "":
		return nil, &UsageError{Msg: "plan needs the current state: --base REF, --against DIR or --live"}
	}

	return nil, nil
}

// dialer dials the nodes with the talosconfig, its key material masked.
func dialer(d *Deps, talosconfig string) (talos.Dialer, error) {
	cfg, err := LoadTalosconfig(d, talosconfig)
	if err != nil {
		return nil, err
	}

	return talos.NewDialer(talos.Options{Talosconfig: cfg, Endpoint: d.TalosEndpoint})
}

// planFrom plans the loaded desired state head against the state opts name.
func planFrom(ctx context.Context, d *Deps, opts PlanOptions, head *Repo, dialer talos.Dialer) (*PlanResult, *planned, error) {
	headInput := rulesInput(ctx, d, head, opts.Offline)
	findings, err := rules.Check(ctx, headInput)
	if err != nil {
		return nil, nil, err
	}

	var (
		base *Repo
		res  *PlanResult
	)

	if opts.Live {
		res = &PlanResult{Findings: findings, Nodes: len(head.Nodes)}
	} else {
		switch base, err = loadOther(ctx, d, opts.Dir, opts.Base, opts.Against, head, true); {
		case errors.Is(err, errNoBase):
			// A new cluster: nothing to compare versions with, every node is created.
			res = &PlanResult{Findings: findings, Nodes: len(head.Nodes)}
		case err != nil:
			return nil, nil, err
		default:
			bump := rules.CompareVersions(rulesInput(ctx, d, base, opts.Offline), headInput)
			res = &PlanResult{Findings: merge(findings, bump.Findings), Nodes: len(head.Nodes), Bump: bump}
		}
	}

	if finding.HasErrors(findings) {
		// No plan for a desired state with errors; the findings and the version bump (the
		// reason for many such pull requests) still say what the change does.
		res.Plan = plan.BlockedPlan(head.Cluster.Spec.Cluster.Name)

		return res, nil, nil
	}

	var current plan.State

	if opts.Live {
		current = LoadLive(ctx, d, head, dialer, opts.Kubeconfig)
	} else if base != nil {
		if current, err = planState(base, true); err != nil {
			return nil, nil, fmt.Errorf("current state: %w", err)
		}
	}

	desired, err := planState(head, false)
	if err != nil {
		return nil, nil, fmt.Errorf("desired state: %w", err)
	}

	if res.Plan, err = plan.Compute(ctx, head.Cluster.Spec.Cluster.Name, current, desired, planMasker(d, head, base)); err != nil {
		return nil, nil, err
	}

	return res, &planned{head: head, current: current}, nil
}

// planMasker masks what the printing masker does and the bundles' public values too (CA
// certificates, the cluster ID): a plan then reads the same whichever bundle rendered it,
// so a pull request's plan, rendered without the real secrets, is the one apply checks.
func planMasker(d *Deps, states ...*Repo) *mask.Masker {
	values := d.masker().Values()

	for _, r := range states {
		if r != nil {
			values = append(values, r.Bundle.Public()...)
		}
	}

	return mask.New(values...)
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

func planState(r *Repo, current bool) (plan.State, error) {
	s := stateOf(r)

	nodes, err := nodeStates(r, r.Nodes, current)
	s.Nodes = nodes

	return s, err
}

// stateOf is what a plan compares of a state but its nodes, and the files it is made from
// (the secrets bundle as committed: its bytes bind the plan without being decrypted).
func stateOf(r *Repo) plan.State {
	return plan.State{
		TalosVersion: r.Cluster.Spec.TalosVersion, KubernetesVersion: r.Cluster.Spec.KubernetesVersion,
		SecretsFingerprint: fingerprint(r.Bundle), Settings: plan.ClusterSettings(r.Cluster),
		HealthChecks: plan.HealthChecks(r.Cluster), Alerts: plan.AlertsOf(r.Cluster), Maintenance: plan.MaintenanceOf(r.Cluster),
		ApplyOptions: plan.ApplyOptionsOf(r.Cluster), Inputs: r.Cluster.Inputs(),
	}
}

// nodeStates are what a plan compares of the state's rendered nodes. A node of the desired
// state that does not render is an error; one of the current state is planned without a
// comparison.
func nodeStates(r *Repo, rendered []render.Result, current bool) ([]plan.NodeState, error) {
	out := make([]plan.NodeState, 0, len(rendered))

	for _, n := range rendered {
		var settings []plan.Setting
		if i := r.Cluster.NodeIndex(n.Name); i >= 0 {
			settings = plan.NodeSettings(r.Cluster.Spec.Nodes[i])
		}

		if n.Err != nil {
			if !current {
				return out, fmt.Errorf("node %s does not render: %w", n.Name, n.Err)
			}

			// A pull request may fix a node the base cannot render: plan it without a comparison.
			broken, _, _ := strings.Cut(n.Err.Error(), "\n")
			out = append(out, plan.NodeState{Name: n.Name, Broken: "it does not render: " + broken, Settings: settings})

			continue
		}

		out = append(out, plan.NodeState{
			Name:      n.Name,
			Role:      n.Machine.Node.Role,
			Schematic: n.Machine.Node.Schematic,
			Installer: n.Machine.Installer,
			// Read as the migration's proof reads it.
			SchematicKernelArgs: bootNode(r.Cluster, n.Machine).SchematicKernelArgs,
			Config:              n.Machine.Config,
			Encode:              n.Machine.Bytes,
			Settings:            settings,
		})
	}

	return out, nil
}

// fingerprint identifies a bundle without revealing it.
func fingerprint(b *secrets.Bundle) string {
	sum := sha256.Sum256([]byte(strings.Join(b.Values(), "\x00")))

	return hex.EncodeToString(sum[:])
}

// rulesInput is what the rules judge a loaded state with, release data included.
func rulesInput(ctx context.Context, d *Deps, r *Repo, offline bool) *rules.Input {
	cat, lookup := ReleaseCatalog(ctx, d, r.Cluster, offline)

	return &rules.Input{
		Cluster: r.Cluster, Nodes: r.Nodes, Bundle: r.Bundle, Schematics: r.Schematics,
		Catalog: cat, Release: lookup, SchematicFiles: rules.LoadSchematicFiles(r.Cluster),
	}
}
