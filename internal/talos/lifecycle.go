package talos

import (
	"context"
	"fmt"
	"net"
	"net/url"

	"github.com/cosi-project/runtime/pkg/safe"
	"github.com/cosi-project/runtime/pkg/state"
	"github.com/siderolabs/talos/pkg/machinery/api/machine"
	"github.com/siderolabs/talos/pkg/machinery/resources/cluster"
	"github.com/siderolabs/talos/pkg/machinery/resources/k8s"
	"github.com/siderolabs/talos/pkg/machinery/resources/network"
)

// ResetOptions say how a node is reset.
type ResetOptions struct {
	// Graceful cordons and drains the node and, on a control plane, leaves etcd before
	// anything is wiped (Talos' own sequence; container mode skips it).
	Graceful bool
	// Reboot boots the node again afterwards (false: it shuts down).
	Reboot bool
	// Wipe are the labels of the system partitions to wipe (none: the whole system disk).
	Wipe []string
}

// WipeToMaintenance wipes what a node keeps of its cluster (its config on STATE, its data
// and etcd's on EPHEMERAL) but not the installed image: with a reboot, the node boots the
// same Talos into maintenance mode, ready to be applied again as a new node.
var WipeToMaintenance = []string{"STATE", "EPHEMERAL"}

// resetRequest is the request talosctl reset --graceful --reboot --system-labels-to-wipe
// sends for o.
func resetRequest(o ResetOptions) *machine.ResetRequest {
	req := &machine.ResetRequest{Graceful: o.Graceful, Reboot: o.Reboot, Mode: machine.ResetRequest_SYSTEM_DISK}

	for _, label := range o.Wipe {
		req.SystemPartitionsToWipe = append(req.SystemPartitionsToWipe, &machine.ResetPartitionSpec{Label: label, Wipe: true})
	}

	return req
}

func (n *clientNode) Reset(ctx context.Context, o ResetOptions) error {
	return n.c.ResetGeneric(n.with(ctx), resetRequest(o))
}

// EtcdRemoveMember removes the member id from etcd, asked of this control plane: for a
// member that did not leave by itself.
func (n *clientNode) EtcdRemoveMember(ctx context.Context, id uint64) error {
	return n.c.EtcdRemoveMemberByID(n.with(ctx), &machine.EtcdRemoveMemberByIDRequest{MemberId: id})
}

// ClusterMember is a node of the cluster as Talos' discovery lists it.
type ClusterMember struct {
	Hostname string
	// Addresses are the node's addresses, the first one the one it is reached at.
	Addresses []string
	// Role is controlplane or worker.
	Role string
}

func (n *clientNode) Members(ctx context.Context) ([]ClusterMember, error) {
	list, err := safe.StateListAll[*cluster.Member](n.with(ctx), n.c.COSI)
	if err != nil {
		return nil, err
	}

	var out []ClusterMember

	for m := range list.All() {
		spec := m.TypedSpec()
		cm := ClusterMember{Hostname: spec.Hostname, Role: spec.MachineType.String()}

		for _, a := range spec.Addresses {
			cm.Addresses = append(cm.Addresses, a.String())
		}

		out = append(out, cm)
	}

	return out, nil
}

func (n *clientNode) Hostnames(ctx context.Context) ([]string, error) {
	h, err := safe.StateGetByID[*network.HostnameStatus](n.with(ctx), n.c.COSI, network.HostnameID)
	if err != nil {
		return nil, err
	}

	names := []string{h.TypedSpec().Hostname}
	if fqdn := h.TypedSpec().FQDN(); fqdn != names[0] {
		names = append(names, fqdn)
	}

	return names, nil
}

func (n *clientNode) KubeNodename(ctx context.Context) (string, error) {
	r, err := safe.StateGetByID[*k8s.Nodename](n.with(ctx), n.c.COSI, k8s.NodenameID)
	if err == nil && r.TypedSpec().Nodename != "" {
		return r.TypedSpec().Nodename, nil
	}

	// A node whose kubelet is not set up yet publishes no Nodename: the kubelet will
	// register under the hostname.
	if err != nil && !state.IsNotFoundError(err) {
		return "", fmt.Errorf("read nodename: %w", err)
	}

	names, err := n.Hostnames(ctx)
	if err != nil {
		return "", fmt.Errorf("read hostname: %w", err)
	}

	return names[0], nil
}

// Address is the host of the member's first peer URL ("" when it names none): the
// address the control plane is reached at.
func (m EtcdMember) Address() string {
	for _, raw := range m.PeerURLs {
		u, err := url.Parse(raw)
		if err != nil {
			continue
		}

		if host, _, err := net.SplitHostPort(u.Host); err == nil {
			return host
		}

		return u.Host
	}

	return ""
}
