package talostest

import (
	"context"
	"net/netip"
	"slices"
	"sync"

	"github.com/cosi-project/runtime/pkg/resource"
	"github.com/cosi-project/runtime/pkg/safe"
	"github.com/siderolabs/talos/pkg/machinery/config/machine"
	"github.com/siderolabs/talos/pkg/machinery/resources/cluster"
)

// Cluster is what several fake nodes of one cluster share: the etcd cluster their control
// planes form, and Talos' discovery of the cluster's members (the Member resources every
// node lists). Nodes that point at one Cluster see each other's joins and leaves: a control
// plane configured after the bootstrap joins etcd, and one that leaves is gone from every
// member list.
type Cluster struct {
	mu sync.Mutex
	// etcd are the members in the order they joined; nextID numbers them.
	etcd   []etcdMember
	nextID uint64
	// waiting are control planes configured before the bootstrap: they join with it.
	waiting []etcdMember
	// nodes are the configured nodes, for discovery, in the order they registered.
	nodes []*machineService
}

type etcdMember struct {
	id      uint64
	name    string
	address string
}

// EtcdMembers returns the hostnames of the etcd members, in the order they joined.
func (c *Cluster) EtcdMembers() []string {
	c.mu.Lock()
	defer c.mu.Unlock()

	out := make([]string, 0, len(c.etcd))
	for _, m := range c.etcd {
		out = append(out, m.name)
	}

	return out
}

// bootstrapped reports whether etcd was started: it has members.
func (c *Cluster) bootstrapped() bool {
	c.mu.Lock()
	defer c.mu.Unlock()

	return len(c.etcd) > 0
}

// bootstrap starts etcd with name as its first member; the control planes waiting join.
func (c *Cluster) bootstrap(name, address string) {
	c.mu.Lock()
	defer c.mu.Unlock()

	c.etcd = append(c.etcd, c.member(name, address))

	for _, w := range c.waiting {
		if w.name != name {
			c.etcd = append(c.etcd, c.member(w.name, w.address))
		}
	}

	c.waiting = nil
}

// join makes a configured control plane a member, or one waiting for the bootstrap.
func (c *Cluster) join(name, address string) {
	c.mu.Lock()
	defer c.mu.Unlock()

	if slices.ContainsFunc(c.etcd, func(m etcdMember) bool { return m.name == name }) {
		return
	}

	if len(c.etcd) == 0 {
		c.waiting = append(c.waiting, etcdMember{name: name, address: address})

		return
	}

	c.etcd = append(c.etcd, c.member(name, address))
}

// member numbers a new member; c.mu is held.
func (c *Cluster) member(name, address string) etcdMember {
	c.nextID++

	return etcdMember{id: 0x1000 + c.nextID, name: name, address: address}
}

// isMember reports whether name is an etcd member.
func (c *Cluster) isMember(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()

	return slices.ContainsFunc(c.etcd, func(m etcdMember) bool { return m.name == name })
}

// leave removes name from etcd. etcd refuses to remove its last member (the cluster would
// be gone), as the reconfiguration check of etcd's server does.
func (c *Cluster) leave(name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()

	i := slices.IndexFunc(c.etcd, func(m etcdMember) bool { return m.name == name })
	if i < 0 {
		c.waiting = slices.DeleteFunc(c.waiting, func(m etcdMember) bool { return m.name == name })

		return nil // already removed: nothing to do, as LeaveCluster says
	}

	return c.remove(c.etcd[i].id)
}

// removeByID removes the member with id; false when there is none.
func (c *Cluster) removeByID(id uint64) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	if !slices.ContainsFunc(c.etcd, func(m etcdMember) bool { return m.id == id }) {
		return false, nil
	}

	return true, c.remove(id)
}

// remove drops the member id; c.mu is held.
func (c *Cluster) remove(id uint64) error {
	if len(c.etcd) == 1 {
		return errNotEnoughStartedMembers
	}

	c.etcd = slices.DeleteFunc(c.etcd, func(m etcdMember) bool { return m.id == id })

	return nil
}

// members returns the etcd members.
func (c *Cluster) members() []etcdMember {
	c.mu.Lock()
	defer c.mu.Unlock()

	return slices.Clone(c.etcd)
}

// register adds a configured node to discovery, deregister takes it out (a reset node
// has no identity any more); every node's Member resources then say so.
func (c *Cluster) register(m *machineService) {
	c.mu.Lock()
	if !slices.Contains(c.nodes, m) {
		c.nodes = append(c.nodes, m)
	}
	nodes := slices.Clone(c.nodes)
	c.mu.Unlock()

	syncMembers(nodes)
}

func (c *Cluster) deregister(m *machineService) {
	c.mu.Lock()
	c.nodes = slices.DeleteFunc(c.nodes, func(n *machineService) bool { return n == m })
	nodes := slices.Clone(c.nodes)
	c.mu.Unlock()

	syncMembers(nodes)
}

// syncMembers writes every node's Member resources: one per configured node of the
// cluster, as the discovery service gives them (hostname, addresses, machine type).
func syncMembers(nodes []*machineService) {
	ctx := context.Background()

	for _, m := range nodes {
		want := map[resource.ID]*cluster.Member{}

		for _, n := range nodes {
			want[n.node.Name] = n.memberResource()
		}

		list, err := safe.StateListAll[*cluster.Member](ctx, m.state)
		if err != nil {
			continue
		}

		for have := range list.All() {
			if _, ok := want[have.Metadata().ID()]; !ok {
				_ = m.state.Destroy(ctx, have.Metadata()) // in-memory state
			}
		}

		for id, r := range want {
			cur, err := safe.StateGetByID[*cluster.Member](ctx, m.state, id)
			if err != nil {
				_ = m.state.Create(ctx, r) // in-memory state

				continue
			}

			*cur.TypedSpec() = *r.TypedSpec()
			_ = m.state.Update(ctx, cur) // in-memory state
		}
	}
}

// memberResource is the node's Member resource as discovery gives it.
func (m *machineService) memberResource() *cluster.Member {
	r := cluster.NewMember(cluster.NamespaceName, m.node.Name)
	r.TypedSpec().Hostname = m.node.Name
	r.TypedSpec().OperatingSystem = "Talos (" + m.node.Version + ")"

	r.TypedSpec().MachineType = machine.TypeWorker
	if m.controlPlane.Load() {
		r.TypedSpec().MachineType = machine.TypeControlPlane
	}

	if a, err := netip.ParseAddr(m.node.Address); err == nil {
		r.TypedSpec().Addresses = []netip.Addr{a}
	}

	return r
}
