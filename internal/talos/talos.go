// Package talos reads what nodes run over the Talos API (the running machine config, the
// Talos version and the schematic of the installed image) and applies configs to them. It
// speaks mTLS only, with the client certificate of a talosconfig.
package talos

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// DefaultTimeout bounds the reads of one node.
const DefaultTimeout = 10 * time.Second

// Target is a node to read: its name and address from talops.yaml.
type Target struct {
	Name    string
	Address string
}

// Running is what a node runs.
type Running struct {
	// Config is the running (active) machine config, as the node encodes it.
	Config []byte
	// Version is the Talos version tag, e.g. v1.13.9.
	Version string
	// SchematicID is the Image Factory schematic of the installed image ("" when the node
	// was not installed from the Image Factory).
	SchematicID string
	// Maintenance is true for a node that answers only the maintenance API: it waits for
	// its first config (a new node, or one reinstalled). Config is then empty.
	Maintenance bool
	// Hostnames are the names the node goes by (hostname, FQDN), nil when it did not say.
	Hostnames []string
	// KubeNode is the name of the node's Node object in Kubernetes as the node says it
	// ("" when it did not say).
	KubeNode string
}

// Result is the outcome of reading one node.
type Result struct {
	Node  string
	Value Running
	Err   error
}

// Node is the Talos API of one node, narrowed to what a plan and an apply need.
type Node interface {
	// MachineConfig returns the running machine config.
	MachineConfig(ctx context.Context) ([]byte, error)
	// Version returns the running Talos version tag.
	Version(ctx context.Context) (string, error)
	// SchematicID returns the schematic ID of the installed image, "" when there is none.
	SchematicID(ctx context.Context) (string, error)
	// Status returns the machine's stage and readiness.
	Status(ctx context.Context) (Status, error)
	// BootID returns the kernel's boot ID, which changes on every boot.
	BootID(ctx context.Context) (string, error)
	// Apply sends a machine config in mode; with dryRun the node only says what it would do.
	Apply(ctx context.Context, config []byte, mode Mode, dryRun bool) (Applied, error)
	// Reboot reboots the node.
	Reboot(ctx context.Context) error
	// PullImage pulls an image into the node's system containerd (Talos ≥ 1.13).
	PullImage(ctx context.Context, image string) error
	// Upgrade installs the image with LifecycleService (Talos ≥ 1.13); the new image
	// boots on the next reboot, which the caller asks for.
	Upgrade(ctx context.Context, image string) error
	// LegacyUpgrade installs the image with MachineService.Upgrade; the node checks etcd,
	// then reboots into it by itself.
	LegacyUpgrade(ctx context.Context, image string) error
	// Rollback points the node's bootloader at the image it ran before its last upgrade
	// and reboots it into that image.
	Rollback(ctx context.Context) error
	// EtcdMembers lists the etcd cluster's members (control planes only).
	EtcdMembers(ctx context.Context) ([]EtcdMember, error)
	// EtcdErrors returns the errors the node's etcd member reports (control planes only).
	EtcdErrors(ctx context.Context) ([]string, error)
	// Bootstrap starts etcd on the first control plane of a new cluster.
	Bootstrap(ctx context.Context) error
	// EtcdRecover uploads an etcd snapshot for BootstrapRecover to start etcd from
	// (control planes only, before the bootstrap).
	EtcdRecover(ctx context.Context, snapshot io.Reader) error
	// BootstrapRecover starts etcd on a control plane from the snapshot EtcdRecover
	// uploaded, its hash checked.
	BootstrapRecover(ctx context.Context) error
	// Kubeconfig returns the cluster's admin kubeconfig (control planes only).
	Kubeconfig(ctx context.Context) ([]byte, error)
	// EtcdSnapshot streams a snapshot of the node's etcd member into w (control planes only).
	EtcdSnapshot(ctx context.Context, w io.Writer) error
	// Reset wipes the node as o says; the node answers at once and resets a moment later.
	Reset(ctx context.Context, o ResetOptions) error
	// EtcdRemoveMember removes another member from etcd (control planes only).
	EtcdRemoveMember(ctx context.Context, id uint64) error
	// Members lists the cluster's nodes as Talos' discovery knows them.
	Members(ctx context.Context) ([]ClusterMember, error)
	// Hostnames returns the node's hostname and, when it has a domain, its FQDN: the
	// names etcd, discovery and Kubernetes know it by.
	Hostnames(ctx context.Context) ([]string, error)
	// KubeNodename returns the name the node's kubelet registers its Node object as (the
	// Nodename resource; its hostname when it publishes none).
	KubeNodename(ctx context.Context) (string, error)
	Close() error
}

// Dialer opens the Talos API of the node at an address: over mTLS, or the maintenance API
// of a node that has no config yet.
type Dialer interface {
	Dial(ctx context.Context, address string) (Node, error)
	DialMaintenance(ctx context.Context, address string) (Maintenance, error)
}

// ReadAll reads every target concurrently, each within timeout (DefaultTimeout when 0).
// One node's failure never stops the others: its Result carries the error.
func ReadAll(ctx context.Context, d Dialer, targets []Target, timeout time.Duration) []Result {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}

	out := make([]Result, len(targets))

	var wg sync.WaitGroup

	for i, t := range targets {
		wg.Go(func() {
			nctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()

			v, err := read(nctx, d, t.Address)
			if err != nil {
				err = fmt.Errorf("node %s (%s): %w", t.Name, t.Address, err)
			}

			out[i] = Result{Node: t.Name, Value: v, Err: err}
		})
	}

	wg.Wait()

	return out
}

func read(ctx context.Context, d Dialer, address string) (Running, error) {
	n, err := d.Dial(ctx, address)
	if err != nil {
		return Running{}, err
	}
	defer n.Close() //nolint:errcheck // read-only

	var r Running

	if r.Version, err = n.Version(ctx); err != nil {
		// A node without a config has no certificate the cluster's CA signed: it may be
		// waiting in maintenance mode. Only a node that says so is read as such.
		if m, ok := maintenance(ctx, d, address); ok {
			return m, nil
		}

		return Running{}, fmt.Errorf("read Talos version: %w", err)
	}

	if r.Config, err = n.MachineConfig(ctx); err != nil {
		return Running{}, fmt.Errorf("read machine config: %w", err)
	}

	if r.SchematicID, err = n.SchematicID(ctx); err != nil {
		return Running{}, fmt.Errorf("read extensions: %w", err)
	}

	// Only to tell the node apart from the ones talops.yaml does not name: not a failure.
	r.Hostnames, _ = n.Hostnames(ctx)

	// Only to find its Node object: apply falls back on the node's addresses.
	r.KubeNode, _ = n.KubeNodename(ctx)

	return r, nil
}

// maintenance reads the node at address over the maintenance API: ok when it answers
// there in stage maintenance.
func maintenance(ctx context.Context, d Dialer, address string) (Running, bool) {
	m, err := d.DialMaintenance(ctx, address)
	if err != nil {
		return Running{}, false
	}
	defer m.Close() //nolint:errcheck // read-only

	st, err := m.Status(ctx)
	if err != nil || st.Stage != StageMaintenance {
		return Running{}, false
	}

	v, err := m.Version(ctx)
	if err != nil {
		return Running{}, false
	}

	return Running{Version: v, Maintenance: true}, true
}

// OneLine is the first line of an error's message, for a reason in a plan.
func OneLine(err error) string {
	line, _, _ := strings.Cut(err.Error(), "\n")

	return line
}
