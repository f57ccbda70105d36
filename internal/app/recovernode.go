package app

import (
	"context"
	"fmt"
	"slices"

	"github.com/talops/talops/internal/backup"
)

// planNode plans bringing one lost control plane back: its stale member removed from a
// healthy one, the node reset (or taken from maintenance mode) and configured, rejoined.
// Refused when etcd has no quorum without it, or would lose it.
func (r *recovery) planNode(_ context.Context, name string) error {
	r.plan.Mode = backup.RecoverNode

	i := slices.IndexFunc(r.nodes, func(p probed) bool { return p.node.Name == name })

	switch {
	case i < 0:
		return &UsageError{Msg: fmt.Sprintf("--node %s: talops.yaml has no such node", name)}
	case !r.nodes[i].controlPlane():
		return &UsageError{Msg: fmt.Sprintf("--node %s: a %s, not a control plane: apply brings a worker back", name, r.nodes[i].node.Role)}
	}

	target := r.nodes[i]

	var healthy []probed

	for _, p := range r.nodes {
		if p.node.Name != name && p.state == stateHealthy {
			healthy = append(healthy, p)
		}
	}

	switch {
	case target.state == stateHealthy:
		return &RefusedRecoveryError{Reason: fmt.Sprintf("%s's etcd member is healthy: nothing to recover", name)}
	case target.state == stateUnreachable:
		return &RefusedRecoveryError{Reason: fmt.Sprintf("%s (%s) is %s: boot it (its machine, or Talos' ISO into maintenance mode) at that address and run recover again", name, target.node.Address, target.reason)}
	case len(healthy) == 0:
		return &RefusedRecoveryError{Reason: "no other control plane has a healthy etcd member: etcd lost quorum; recover the whole cluster from a backup (without --node)"}
	}

	r.anchor = healthy[0]

	voters := 0
	stale := false

	for _, m := range r.anchor.members {
		if !m.Learner {
			voters++
		}

		stale = stale || isMember(target.node, m)
	}

	// etcd needs a majority of its voting members to remove one, and of those left after.
	if need := voters/2 + 1; len(healthy) < need {
		return &RefusedRecoveryError{Reason: fmt.Sprintf("removing %s's member would lose quorum: %d of etcd's %d voting members are healthy, %d are needed", name, len(healthy), voters, need)}
	}

	var actions []string
	if stale {
		actions = append(actions, backup.ActionRemoveMember)
	}

	if target.state == stateConfigured {
		actions = append(actions, backup.ActionReset)
	}

	actions = append(actions, backup.ActionConfigure, backup.ActionJoin)

	r.plan.Why = []string{fmt.Sprintf("etcd has quorum: %d of %d voting members healthy (%s)", len(healthy), voters, names(healthy))}
	r.plan.Nodes = []backup.RecoveryNode{
		recoveryNode(target, actions),
		recoveryNode(r.anchor, nil),
	}
	r.nodes = []probed{target, r.anchor}

	return nil
}

func recoveryNode(p probed, actions []string) backup.RecoveryNode {
	return backup.RecoveryNode{Name: p.node.Name, Address: p.node.Address, Role: string(p.node.Role), State: p.reason, Actions: actions}
}

// runNode takes the lost control plane through its actions, quorum kept throughout: only
// its own member is removed, asked of a healthy one.
func (r *recovery) runNode(ctx context.Context) error {
	p := r.nodes[0]

	for _, action := range r.plan.Nodes[0].Actions {
		if err := r.act(ctx, p, action, nil); err != nil {
			return fmt.Errorf("recover %s: %s: %w", p.node.Name, action, err)
		}
	}

	return nil
}
