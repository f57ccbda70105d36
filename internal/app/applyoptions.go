package app

import (
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/rollout"
)

// choices are the options an apply was given and those its talops.yaml declares: the
// preflight refuses a given one the reviewed plan did not declare, and the report records
// both.
type choices struct {
	given, declared rollout.Choices
}

// applyChoices reads the options opts gives and c declares, and sets opts to those the
// apply runs with (each given or declared; the mode given, else declared, else auto). It
// refuses, before any node is read, an option given beyond what the reviewed plan
// declared.
func applyChoices(opts *ApplyOptions, c *cluster.Cluster) (choices, error) {
	ch := choices{
		given: rollout.Choices{
			AllowRemove: opts.AllowRemove, NoDrain: opts.NoDrain, NoLock: opts.NoLock, IgnoreWindow: opts.IgnoreWindow,
			NoEtcdBackup: opts.NoEtcdBackup, ProxmoxVMs: opts.ProxmoxVMs, ProxmoxReset: opts.ProxmoxReset, Rollback: opts.Rollback,
			Mode: rollout.Mode(opts.Mode), Nodes: opts.Nodes,
		},
		declared: rollout.DeclaredChoices(c.Spec.Apply),
	}

	if reasons := rollout.OptionRefusals(rollout.Preflight{PlanHash: opts.PlanHash, Given: ch.given, Declared: ch.declared}); len(reasons) > 0 {
		return ch, &RefusedError{Reasons: reasons}
	}

	m := ch.given.Merged(ch.declared)
	opts.AllowRemove, opts.NoDrain, opts.NoLock, opts.IgnoreWindow = m.AllowRemove, m.NoDrain, m.NoLock, m.IgnoreWindow
	opts.NoEtcdBackup, opts.ProxmoxVMs, opts.ProxmoxReset, opts.Mode = m.NoEtcdBackup, m.ProxmoxVMs, m.ProxmoxReset, string(m.Mode)
	opts.Rollback = m.Rollback

	return ch, nil
}
