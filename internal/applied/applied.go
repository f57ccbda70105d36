// Package applied is what an apply did, node by node: the typed result the rollout fills
// in and the views format. It is pure: no node is reached from here.
package applied

import (
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/plan"
)

// Outcome is what happened to a node.
type Outcome string

// Outcomes.
const (
	Applied      Outcome = "applied"
	DryRun       Outcome = "dry-run"
	Skipped      Outcome = "skipped"
	Failed       Outcome = "failed"
	NotAttempted Outcome = "not attempted"
)

// Outcomes lists every outcome in the order summaries count them.
var Outcomes = []Outcome{Applied, DryRun, Skipped, Failed, NotAttempted}

// NodeResult is what happened to one node.
type NodeResult struct {
	Name    string       `json:"name"`
	Role    cluster.Role `json:"role"`
	Action  plan.Action  `json:"action"`
	Outcome Outcome      `json:"outcome"`
	// Rebooted is true when the node rebooted (by itself or asked by talops).
	Rebooted bool `json:"rebooted"`
	// Cordoned is true when the node was drained and left cordoned: it failed after its
	// drain, so talops did not make it schedulable again (kubectl uncordon, once it is
	// healthy).
	Cordoned bool `json:"cordoned,omitempty"`
	// ProxmoxReset is true when the node did not come back after its reboot and its VM was
	// reset through Proxmox (apply --proxmox-reset).
	ProxmoxReset bool `json:"proxmoxReset,omitempty"`
	// RolledBack is the Talos version the node was rolled back to when its health gate
	// failed after an upgrade (apply --rollback).
	RolledBack string `json:"rolledBack,omitempty"`
	// Detail says what was done or why it failed, in one line.
	Detail string `json:"detail"`
	// Warnings are what the node said about the config it took (deprecated fields…).
	Warnings []string `json:"warnings,omitempty"`
}

// Mode is the apply mode a report was made with, as its views print it.
type Mode string

// Report is the outcome of a rollout, node by node in rollout order.
type Report struct {
	Cluster  string `json:"cluster"`
	PlanHash string `json:"planHash"`
	// EtcdSnapshot is where the etcd snapshot taken before the first control-plane change
	// was saved ("" when none was taken).
	EtcdSnapshot string       `json:"etcdSnapshot,omitempty"`
	Mode         Mode         `json:"mode"`
	DryRun       bool         `json:"dryRun"`
	Nodes        []NodeResult `json:"nodes"`
	// Stopped says why the rollout stopped before every node was handled, when no node's
	// failure stopped it (the apply lock was lost).
	Stopped string `json:"stopped,omitempty"`
	// NoLock says why the apply ran without the apply lock (--no-lock).
	NoLock string `json:"noLock,omitempty"`
	// Window says that the apply ran outside every maintenance window, and why it could
	// (--ignore-window, or a dry run).
	Window string `json:"window,omitempty"`
	// Unhealthy says which health check failed after the last node was applied.
	Unhealthy string `json:"unhealthy,omitempty"`
	// Resumed says that the rollout continued one of the same plan that had stopped.
	Resumed string `json:"resumed,omitempty"`
	// Options are the options the apply ran with that change what it does.
	Options []Option `json:"options,omitempty"`
}

// Option is one option an apply ran with that changes what it does, and where it came
// from: talops.yaml's apply: section (reviewed with the plan), the command line or the
// action's inputs, or both.
type Option struct {
	// Flag is the option as apply's flags name it ("--no-drain", "--nodes a,b"); the
	// action's input has the same name.
	Flag string `json:"flag"`
	// Key is the option as the apply: section writes it ("drain: false"; "": none).
	Key string `json:"key,omitempty"`
	// Given is true when the command line or an action input gave it; Declared when
	// talops.yaml declares it.
	Given    bool `json:"given"`
	Declared bool `json:"declared"`
}

// Failed reports whether a node failed.
func (r *Report) Failed() bool {
	for _, n := range r.Nodes {
		if n.Outcome == Failed {
			return true
		}
	}

	return false
}

// Incomplete reports whether some node was not attempted: the rollout stopped (a failure,
// or an interruption such as a cancelled job) before it handled every node.
func (r *Report) Incomplete() bool {
	for _, n := range r.Nodes {
		if n.Outcome == NotAttempted {
			return true
		}
	}

	return false
}

// Count returns how many nodes had each outcome.
func (r *Report) Count() map[Outcome]int {
	out := map[Outcome]int{}
	for _, n := range r.Nodes {
		out[n.Outcome]++
	}

	return out
}
