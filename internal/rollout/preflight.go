package rollout

import (
	"fmt"
	"slices"
	"strings"

	"github.com/talops/talops/internal/catalog"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/schematic"
)

// Apply modes, as --mode names them.
const (
	ModeAuto     Mode = "auto"
	ModeNoReboot Mode = "no-reboot"
	ModeStaged   Mode = "staged"
	ModeTry      Mode = "try"
)

// ApplyEvents are the workflow events apply runs for: those that run the default branch's
// own code ("" is a run outside GitHub Actions). An allowlist, since pull requests arrive
// under several names (pull_request_target, issue_comment, workflow_run, merge_group…).
var ApplyEvents = []string{"", "push", "workflow_dispatch", "schedule"}

// EventRefusal is the reason apply refuses to run for a workflow event, "" when it may.
func EventRefusal(event string) string {
	if slices.Contains(ApplyEvents, event) {
		return ""
	}

	return "apply does not run for " + event + " events: it runs on the merged commit (push, workflow_dispatch or schedule)"
}

// BranchRefusal is the reason apply refuses to run on ref, "" when it may: only what was
// merged on the repository's default branch was reviewed. It fails closed: a run that
// cannot tell either is refused.
func BranchRefusal(ref, defaultBranch string) string {
	switch {
	case ref == "" || defaultBranch == "":
		return "apply cannot tell that it runs on the default branch (the event names no ref or no default branch): it refuses rather than apply what may not have been reviewed"
	case ref == "refs/heads/"+defaultBranch:
		return ""
	}

	return fmt.Sprintf("apply runs on the default branch (%s), not on %s", defaultBranch, ref)
}

// Preflight is what apply knows before it touches a node: the live plan, what the nodes
// run, and what was reviewed.
type Preflight struct {
	// Live is the plan against the running nodes; Running is what they run.
	Live    *plan.Plan
	Running []plan.NodeState
	// TargetVersion is the Talos version of the desired state.
	TargetVersion string
	Mode          Mode
	// PlanHash is the hash the caller requires ("": none). ReviewedHash is the hash of the
	// plan it is compared with, computed against ReviewedAgainst ("": the running nodes).
	PlanHash, ReviewedHash, ReviewedAgainst string
	// Reviewed is the reviewed plan, when it was recomputed (nil: the live plan is the one).
	Reviewed *plan.Plan
	// Only, when set, names the nodes to apply (--nodes): the others are neither judged
	// nor touched. The hash still covers the whole plan.
	Only map[string]bool
	// AllowRemove lets apply remove the nodes the plan removes (--allow-remove, or
	// declared).
	AllowRemove bool
	// Given are the options of the command line or the action's inputs; Declared, those
	// of talops.yaml's apply: section, reviewed with the plan (OptionRefusals).
	Given, Declared Choices
	// EtcdMembers are the hostnames etcd lists now (nil: unknown; the running control
	// planes are counted instead).
	EtcdMembers []string
}

// selected reports whether the node named is one to apply.
func (p Preflight) selected(name string) bool { return p.Only == nil || p.Only[name] }

// only keeps the nodes of a plan that p selects, for the judgements per node.
func (p Preflight) only(pl *plan.Plan) *plan.Plan {
	if pl == nil || p.Only == nil {
		return pl
	}

	out := *pl
	out.Nodes = nil

	for _, n := range pl.Nodes {
		if p.selected(n.Name) {
			out.Nodes = append(out.Nodes, n)
		}
	}

	return &out
}

// Refusals are the reasons to touch no node at all, one line each.
func Refusals(p Preflight) []string {
	out := HashRefusals(p)

	var running []plan.NodeState

	for _, n := range p.Running {
		if !p.selected(n.Name) {
			continue
		}

		running = append(running, n)

		if n.Broken != "" {
			out = append(out, fmt.Sprintf("node %s: %s", n.Name, n.Broken))
		}
	}

	live := p.only(p.Live)

	if len(out) == 0 {
		// The plan of an unreadable node says nothing true; its actions are not worth judging.
		out = append(out, runningRefusals(live, running, p.TargetVersion)...)
		out = append(out, actionRefusals(live, p.Mode)...)
		out = append(out, removeRefusals(p, live)...)
	}

	out = append(out, OptionRefusals(p)...)

	return append(out, BeyondReview(live, p.Reviewed)...)
}

// HashRefusals refuse a plan other than the reviewed one: Refusals' first check, which apply
// also makes on its own before it changes anything outside the nodes.
func HashRefusals(p Preflight) []string {
	if p.PlanHash == "" || p.PlanHash == p.ReviewedHash {
		return nil
	}

	against := "the running nodes"
	if p.ReviewedAgainst != "" {
		against = p.ReviewedAgainst
	}

	return []string{fmt.Sprintf("the plan differs from the one reviewed: its hash against %s is %s, --plan-hash is %s", against, p.ReviewedHash, p.PlanHash)}
}

// OptionRefusals refuse the options given (not declared in the reviewed talops.yaml) that
// widen what the reviewed plan said, when a reviewed plan is enforced (a plan hash): the
// review covered talops.yaml's apply: section, not the command line. A mode other than the
// declared one (default auto) widens it, but no-reboot, which only refuses more. Options
// that narrow the rollout (--nodes, --dry-run) pass. Without a reviewed plan nothing is
// refused here: the options are only recorded.
func OptionRefusals(p Preflight) []string {
	if p.PlanHash == "" {
		return nil
	}

	given, declared := p.Given, p.Declared

	var out []string

	for _, w := range widenings {
		if *w.field(&given) && !*w.field(&declared) {
			out = append(out, fmt.Sprintf("%s: the reviewed plan did not allow %s: declare apply.%s in talops.yaml and have it reviewed", w.flag, w.does, w.key))
		}
	}

	if want := modeOf(Choices{}, declared); given.Mode != "" && given.Mode != want && given.Mode != ModeNoReboot {
		out = append(out, fmt.Sprintf("--mode %s: the reviewed plan applies in mode %s: declare apply.mode: %s in talops.yaml and have it reviewed", given.Mode, want, given.Mode))
	}

	return out
}

// runningRefusals refuse what no apply can do to what a node runs: what each node runs must
// be able to reach the target release in one upgrade, in the role it has (Talos cannot turn
// a control plane into a worker, or back, in place).
func runningRefusals(live *plan.Plan, running []plan.NodeState, target string) []string {
	desiredRole := map[string]cluster.Role{}
	for _, n := range live.Nodes {
		desiredRole[n.Name] = n.Role
	}

	var out []string

	for _, n := range running {
		if want := desiredRole[n.Name]; n.Role != "" && want != "" && n.Role != want {
			out = append(out, fmt.Sprintf("node %s runs as %s and talops.yaml makes it a %s: Talos cannot change a node's role in place; reset and re-create it by hand", n.Name, n.Role, want))
		}

		if n.TalosVersion == "" || n.TalosVersion == target {
			continue
		}

		if v, err := catalog.CanUpgrade(n.TalosVersion, target); err == nil && v.Kind.Blocking() {
			out = append(out, fmt.Sprintf("node %s runs %s: %s", n.Name, n.TalosVersion, v.Message()))
		}
	}

	return out
}

// actionRefusals refuse planned actions talops does not carry out, or not in this mode.
func actionRefusals(live *plan.Plan, mode Mode) []string {
	var out []string

	for _, n := range live.Nodes {
		switch {
		case n.Action == plan.Create && (mode == ModeStaged || mode == ModeTry):
			out = append(out, fmt.Sprintf("node %s is new: its first config is taken as it is, which --mode %s does not do; use --mode auto", n.Name, mode))
		case n.Action == plan.Upgrade && mode != ModeAuto:
			out = append(out, fmt.Sprintf("node %s needs an upgrade, which reboots it: --mode %s does not; use --mode auto", n.Name, mode))
		case n.Action == plan.Upgrade:
			if _, err := UpgradeTarget(n); err != nil {
				out = append(out, err.Error())
			}
		case n.NeedsReboot && (mode == ModeNoReboot || mode == ModeTry):
			out = append(out, fmt.Sprintf("node %s: its change needs a reboot, which --mode %s cannot do; use --mode auto or staged", n.Name, mode))
		}
	}

	return out
}

// Strength orders what an action does to a node, least disruptive first; actions it
// does not list are never compared. A node created live must have been new in the
// reviewed plan too: one that was running then and waits in maintenance mode now was
// reinstalled since, and gets its config only after a new review.
var Strength = map[plan.Action]int{plan.Noop: 0, plan.Update: 1, plan.Reboot: 2, plan.Upgrade: 3, plan.Create: 4}

// BeyondReview refuses nodes whose live action is more disruptive than the reviewed plan
// said (the node drifted since): the hash proved the review, not what the nodes need now.
func BeyondReview(live, reviewed *plan.Plan) []string {
	if reviewed == nil {
		return nil
	}

	said := map[string]plan.Action{}
	for _, n := range reviewed.Nodes {
		said[n.Name] = n.Action
	}

	var out []string

	for _, n := range live.Nodes {
		r, ok := said[n.Name]
		if !ok {
			continue
		}

		if ls, lok := Strength[n.Action]; lok {
			if rs, rok := Strength[r]; rok && ls > rs {
				out = append(out, fmt.Sprintf("node %s needs %s now, but the reviewed plan said %s: it drifted since; review a new plan (talops plan --live)", n.Name, n.Action, r))
			}
		}
	}

	return out
}

// Desired is one node of the desired state as a rollout needs it.
type Desired struct {
	Name    string
	Address string
	Config  []byte
	// Version is the desired Talos version: what a new node answers with once configured.
	Version string
}

// Steps pairs every planned node with its address, desired config and running version.
func Steps(live *plan.Plan, running []plan.NodeState, desired []Desired) ([]Step, error) {
	version, address := map[string]string{}, map[string]string{}
	for _, n := range running {
		version[n.Name], address[n.Name] = n.TalosVersion, n.Address
	}

	want := map[string]Desired{}
	for _, n := range desired {
		want[n.Name] = n
	}

	out := make([]Step, 0, len(live.Nodes))

	for _, n := range live.Nodes {
		s := Step{Node: n, Address: want[n.Name].Address, Config: want[n.Name].Config, Version: version[n.Name]}

		if n.Action == plan.Create {
			s.Version, s.Bootstrap = want[n.Name].Version, live.Bootstrap == n.Name
		}

		if n.Action == plan.Remove {
			// Not in talops.yaml: it is reached where it was found running.
			s.Address = address[n.Name]
		}

		if n.Action == plan.Upgrade {
			t, err := UpgradeTarget(n)
			if err != nil {
				return nil, err
			}

			s.Upgrade = t
		}

		out = append(out, s)
	}

	return out, nil
}

// UpgradeTarget is what an upgraded node must run: the version and schematic of its
// desired installer image.
func UpgradeTarget(n plan.Node) (*Target, error) {
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

	return &Target{Image: n.Upgrade.ToInstaller, Version: ref.Tag, SchematicID: ref.ID}, nil
}

// removeRefusals refuse removals unless asked for, of a node talops cannot reach, beyond
// the reviewed plan, and of control planes whose leaving would cost etcd its quorum.
func removeRefusals(p Preflight, live *plan.Plan) []string {
	var removed []plan.Node

	for _, n := range live.Nodes {
		if n.Action == plan.Remove {
			removed = append(removed, n)
		}
	}

	if len(removed) == 0 {
		return nil
	}

	if !p.AllowRemove {
		out := make([]string, 0, len(removed))
		for _, n := range removed {
			out = append(out, fmt.Sprintf("node %s is not in talops.yaml: apply removes a node (drain, reset, delete its Kubernetes Node) only with --allow-remove (the action's input allow-remove: true); or put it back in talops.yaml", n.Name))
		}

		return out
	}

	address := map[string]string{}
	for _, n := range p.Running {
		address[n.Name] = n.Address
	}

	var out []string

	for _, n := range removed {
		// One that does not answer is not reset: what goes is found by its name.
		if address[n.Name] == "" && !n.Unreachable {
			out = append(out, fmt.Sprintf("node %s: talops does not know its address (it was found only by name), so it cannot reset it; reset it by hand (talosctl reset), or put it back in talops.yaml", n.Name))
		}
	}

	out = append(out, unreviewedRemovals(removed, p)...)

	return append(out, quorumRefusal(p, live, removed)...)
}

// unreviewedRemovals refuse removing a node no reviewed plan removes. Apply finds what it
// removes on the running cluster, where a node that was never in talops.yaml looks like one
// taken out of it: only a review tells them apart. A reviewed plan recomputed against its
// base must remove the node; a plan hash binds the removals of the live plan it is the hash
// of; with neither, nothing was reviewed and nothing is removed.
func unreviewedRemovals(removed []plan.Node, p Preflight) []string {
	reviewed := p.Reviewed
	if reviewed == nil {
		if p.PlanHash != "" {
			return nil
		}

		out := make([]string, 0, len(removed))
		for _, n := range removed {
			out = append(out, fmt.Sprintf("node %s would be removed, but no reviewed plan says so: review the plan that removes it (talops plan --live) and apply with its hash (--plan-hash H)", n.Name))
		}

		return out
	}

	said := map[string]bool{}
	for _, n := range reviewed.Nodes {
		said[n.Name] = n.Action == plan.Remove
	}

	var out []string

	for _, n := range removed {
		if !said[n.Name] {
			out = append(out, fmt.Sprintf("node %s would be removed, but the reviewed plan does not remove it: review a new plan (talops plan --live)", n.Name))
		}
	}

	return out
}

// quorumRefusal refuses removing control planes when fewer than a quorum of etcd's
// members would remain, or none: etcd would stop, and the cluster with it. The members are
// those etcd lists now and the new control planes of the plan, which join before any node
// leaves (the rollout stops before the removals when one fails to).
func quorumRefusal(p Preflight, live *plan.Plan, removed []plan.Node) []string {
	members := slices.Clone(p.EtcdMembers)
	if p.EtcdMembers == nil {
		for _, n := range p.Running {
			if n.Role == cluster.RoleControlPlane {
				members = append(members, n.Name)
			}
		}
	}

	for _, n := range live.Nodes {
		if n.Action == plan.Create && n.Role == cluster.RoleControlPlane {
			members = append(members, n.Name)
		}
	}

	var leaving, dead []string

	for _, n := range removed {
		if n.Role == cluster.RoleControlPlane || slices.Contains(members, n.Name) {
			leaving = append(leaving, n.Name)

			if n.Unreachable {
				dead = append(dead, n.Name)
			}
		}
	}

	if len(leaving) == 0 {
		return nil
	}

	total := len(members)
	remaining := total - len(leaving)
	quorum := total/2 + 1
	which := strings.Join(leaving, ", ")

	switch {
	case remaining < quorum && len(dead) > 0 && total-len(dead) < quorum:
		// The dead members already cost etcd its quorum: no member can be removed, nor added.
		return []string{fmt.Sprintf("%s does not answer, and etcd's %d other members are fewer than its quorum of %d: etcd has lost its quorum; recover it from a snapshot (talosctl bootstrap --recover-from) before removing %s", strings.Join(dead, ", "), total-len(dead), quorum, which)}
	case remaining <= 0:
		return []string{fmt.Sprintf("removing %s would leave etcd no member: talops never removes the last control plane", which)}
	case remaining < quorum && total == quorum:
		return []string{fmt.Sprintf("removing %s would leave %d of etcd's %d members, fewer than its quorum of %d: add a control plane first, in its own apply", which, remaining, total, quorum)}
	case remaining < quorum:
		return []string{fmt.Sprintf("removing %s would leave %d of etcd's %d members, fewer than its quorum of %d: remove at most %s per apply", which, remaining, total, quorum, plan.Plural(total-quorum, "control plane"))}
	}

	return nil
}
