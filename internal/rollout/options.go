package rollout

import (
	"strings"

	"github.com/talops/talops/internal/applied"
	"github.com/talops/talops/internal/cluster"
)

// Choices are the options of an apply that change what it does beyond its plan, as the
// command line or the action's inputs gave them, or as talops.yaml's apply: section
// declares them (DeclaredChoices). Every field but Nodes widens what apply does.
type Choices struct {
	AllowRemove, NoDrain, NoLock, IgnoreWindow, NoEtcdBackup, ProxmoxVMs, ProxmoxReset, Rollback bool
	// Mode is the apply mode ("": not given; declared, the default auto).
	Mode Mode
	// Nodes narrows the rollout to these nodes (--nodes); never declared.
	Nodes []string
}

// DeclaredChoices are the options talops.yaml's apply: section declares (a nil section
// declares none).
func DeclaredChoices(a *cluster.ApplyOptions) Choices {
	if a == nil {
		return Choices{}
	}

	return Choices{
		AllowRemove: a.AllowRemove, NoDrain: a.NoDrain(), NoLock: a.NoLock(), IgnoreWindow: a.IgnoreWindow,
		NoEtcdBackup: a.NoEtcdBackup(), ProxmoxVMs: a.ProxmoxVMs, ProxmoxReset: a.ProxmoxReset, Rollback: a.Rollback,
		Mode: Mode(a.Mode),
	}
}

// Merged are the options an apply runs with: each widening one given or declared, the
// mode given, else declared, else auto.
func (o Choices) Merged(declared Choices) Choices {
	out := o
	for _, w := range widenings {
		if *w.field(&declared) {
			*w.field(&out) = true
		}
	}

	out.Mode = modeOf(o, declared)

	return out
}

// modeOf is the mode an apply runs in: given, else declared, else auto.
func modeOf(given, declared Choices) Mode {
	switch {
	case given.Mode != "":
		return given.Mode
	case declared.Mode != "":
		return declared.Mode
	}

	return ModeAuto
}

// widening is one option that widens what apply does: its flag (the action's input has
// the same name), its key in the apply: section, and what it lets apply do.
type widening struct {
	flag, key, does string
	field           func(*Choices) *bool
}

// widenings are the options a reviewed plan must declare, in the order flags list them.
var widenings = []widening{
	{"--allow-remove", "allowRemove: true", "removing nodes", func(o *Choices) *bool { return &o.AllowRemove }},
	{"--no-drain", "drain: false", "rebooting and upgrading nodes without a drain", func(o *Choices) *bool { return &o.NoDrain }},
	{"--no-lock", "lock: false", "applying without the apply lock", func(o *Choices) *bool { return &o.NoLock }},
	{"--ignore-window", "ignoreWindow: true", "applying outside the maintenance windows", func(o *Choices) *bool { return &o.IgnoreWindow }},
	{"--no-etcd-backup", "etcdBackup: false", "changing control planes without an etcd snapshot", func(o *Choices) *bool { return &o.NoEtcdBackup }},
	{"--proxmox-vms", "proxmoxVMs: true", "creating and starting Proxmox VMs", func(o *Choices) *bool { return &o.ProxmoxVMs }},
	{"--proxmox-reset", "proxmoxReset: true", "resetting Proxmox VMs", func(o *Choices) *bool { return &o.ProxmoxReset }},
	{"--rollback", "rollback: true", "rolling a node whose health gate fails after an upgrade back to its previous Talos", func(o *Choices) *bool { return &o.Rollback }},
}

// Record is what a report says of the options an apply ran with: each widening option
// given or declared, a mode other than auto, and the nodes it was narrowed to.
func Record(given, declared Choices) []applied.Option {
	var out []applied.Option

	for _, w := range widenings {
		g, d := *w.field(&given), *w.field(&declared)
		if g || d {
			out = append(out, applied.Option{Flag: w.flag, Key: w.key, Given: g, Declared: d})
		}
	}

	if m := modeOf(given, declared); m != ModeAuto {
		out = append(out, applied.Option{Flag: "--mode " + string(m), Key: "mode: " + string(m), Given: given.Mode != "", Declared: declared.Mode == m})
	}

	if len(given.Nodes) > 0 {
		out = append(out, applied.Option{Flag: "--nodes " + strings.Join(given.Nodes, ","), Given: true})
	}

	return out
}
