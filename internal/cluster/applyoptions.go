package cluster

import (
	"slices"
	"strings"
)

// ApplyOptions is the apply: section: the options of apply this repository declares. Being
// in talops.yaml they are reviewed with every plan (the hash binds its bytes, the plan
// shows them); the same option given only on the command line or as an action input is
// refused where a reviewed plan is enforced. Each field's zero value is apply's default.
type ApplyOptions struct {
	// AllowRemove lets apply remove the nodes a plan removes (--allow-remove).
	AllowRemove bool `yaml:"allowRemove,omitempty"`
	// Drain false reboots and upgrades nodes without draining them (--no-drain).
	Drain *bool `yaml:"drain,omitempty"`
	// Lock false lets apply go on without the apply lock when a running cluster's
	// Kubernetes API does not answer (--no-lock).
	Lock *bool `yaml:"lock,omitempty"`
	// IgnoreWindow applies outside the maintenance windows (--ignore-window).
	IgnoreWindow bool `yaml:"ignoreWindow,omitempty"`
	// EtcdBackup false takes no etcd snapshot before the first control plane changes
	// (--no-etcd-backup).
	EtcdBackup *bool `yaml:"etcdBackup,omitempty"`
	// Mode is the apply mode ("": auto), as --mode names it.
	Mode string `yaml:"mode,omitempty"`
	// ProxmoxVMs creates and starts the missing VMs of nodes first (--proxmox-vms).
	ProxmoxVMs bool `yaml:"proxmoxVMs,omitempty"`
	// ProxmoxReset resets the VM of a node that does not come back (--proxmox-reset).
	ProxmoxReset bool `yaml:"proxmoxReset,omitempty"`
	// Rollback rolls a node whose health gate fails after an upgrade back to the Talos it
	// ran before (--rollback).
	Rollback bool `yaml:"rollback,omitempty"`
}

// ApplyModes are the modes apply: mode may name, as --mode does (rollout's test holds them
// to the Talos adapter's).
var ApplyModes = []string{"auto", "no-reboot", "staged", "try"}

// NoDrain reports whether the section turns drains off.
func (a *ApplyOptions) NoDrain() bool { return a != nil && a.Drain != nil && !*a.Drain }

// NoLock reports whether the section lets apply go on without the lock.
func (a *ApplyOptions) NoLock() bool { return a != nil && a.Lock != nil && !*a.Lock }

// NoEtcdBackup reports whether the section turns the etcd snapshot off.
func (a *ApplyOptions) NoEtcdBackup() bool {
	return a != nil && a.EtcdBackup != nil && !*a.EtcdBackup
}

// applyOptions checks the apply: section, each problem on its line.
func (k *checker) applyOptions() {
	a := k.c.Spec.Apply
	if a == nil || a.Mode == "" || slices.Contains(ApplyModes, a.Mode) {
		return
	}

	k.bad("apply.mode", "%q is not an apply mode: use %s", a.Mode, strings.Join(ApplyModes, ", "))
}
