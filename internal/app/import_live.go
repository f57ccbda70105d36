package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/importer"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/talos"
)

// ImportDiffersError refuses an import whose repository renders other configs than the
// nodes run (import --talosconfig): the first plan after it would not be empty. Nodes are
// those that differ, each with the plan's reasons; nothing was written.
type ImportDiffersError struct {
	Out   string
	Nodes []plan.Node
}

func (e *ImportDiffersError) Error() string {
	var b strings.Builder

	fmt.Fprintf(&b, "the imported repository does not render what the nodes run, so nothing was written to %s (--allow-differences writes it all the same):", e.Out)

	for _, n := range e.Nodes {
		b.WriteString("\n  " + differenceLine(n))
	}

	return b.String()
}

// differenceLine names a node that differs and why, as the plan says it.
func differenceLine(n plan.Node) string {
	return fmt.Sprintf("%s: %s: %s", n.Name, n.What(), strings.Join(n.Reasons, "; "))
}

// importTalosVersion is the Talos release for a source that names none: the one given, else
// the one the running nodes report when a talosconfig is given (its context's nodes, then
// its endpoints: the first that answers).
func importTalosVersion(ctx context.Context, d *Deps, opts ImportOptions) (version string, fromNodes bool, err error) {
	if opts.TalosVersion != "" || opts.Talosconfig == "" {
		return opts.TalosVersion, false, nil
	}

	cfg, err := LoadTalosconfig(d, opts.Talosconfig)
	if err != nil {
		return "", false, err
	}

	c := cfg.Contexts[cfg.Context]
	if c == nil || len(c.Nodes)+len(c.Endpoints) == 0 {
		return "", false, &UsageError{Msg: fmt.Sprintf("--talosconfig: its context %q names no node or endpoint to read the Talos release from", cfg.Context)}
	}

	dl, err := talos.NewDialer(talos.Options{Talosconfig: cfg, Endpoint: d.TalosEndpoint})
	if err != nil {
		return "", false, err
	}

	var errs []error

	for _, ep := range slices.Concat(c.Nodes, c.Endpoints) {
		read := talos.ReadAll(ctx, dl, []talos.Target{{Name: ep, Address: ep}}, d.TalosTimeout)
		if read[0].Err == nil && read[0].Value.Version != "" {
			return read[0].Value.Version, true, nil
		}

		errs = append(errs, read[0].Err)
	}

	return "", false, fmt.Errorf("read the Talos release the nodes run: %w", errors.Join(errs...))
}

// liveDifferences plans the repository an import is about to write against the nodes the
// talosconfig reaches, as plan --live does: every node that would change is a difference.
// Without --allow-differences any is an *ImportDiffersError; with it, each is a finding.
func liveDifferences(ctx context.Context, d *Deps, opts ImportOptions, r *Repo) ([]finding.Finding, error) {
	if opts.Talosconfig == "" {
		return nil, nil
	}

	dl, err := dialer(d, opts.Talosconfig)
	if err != nil {
		return nil, err
	}

	r.Nodes = r.renderer.Nodes(ctx, r.Cluster.Spec.Nodes)

	res, _, err := planFrom(ctx, d, PlanOptions{Dir: opts.Out, Live: true, Offline: opts.Offline}, r, dl)
	if err != nil {
		return nil, fmt.Errorf("compare the imported repository with the running nodes: %w", err)
	}

	if res.Plan == nil || res.Plan.Blocked {
		return nil, fmt.Errorf("compare the imported repository with the running nodes: the plan is blocked")
	}

	differ := slices.DeleteFunc(slices.Clone(res.Plan.Nodes), func(n plan.Node) bool { return !n.Changes() })
	if len(differ) == 0 {
		return nil, nil
	}

	if !opts.AllowDifferences {
		return nil, &ImportDiffersError{Out: opts.Out, Nodes: differ}
	}

	out := make([]finding.Finding, 0, len(differ))
	for _, n := range differ {
		out = append(out, finding.Finding{
			Severity: finding.Warning, Code: importer.CodeDiffers, Node: n.Name,
			Message: "the first plan after the import will " + n.What() + " it: " + strings.Join(n.Reasons, "; "),
		})
	}

	return out, nil
}
