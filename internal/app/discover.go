package app

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/talos"
)

// Where a running node that talops.yaml does not name was found.
const (
	foundEtcd      = "etcd's member list"
	foundDiscovery = "Talos' cluster discovery"
	foundKube      = "the Kubernetes nodes"
)

// discovery is what one control plane says about the cluster: the etcd members, and the
// running nodes that talops.yaml does not name, planned as removed.
type discovery struct {
	etcd  []string
	extra []plan.NodeState
}

// discover asks one control plane of talops.yaml that was read (configured, not in
// maintenance mode) which nodes run in the cluster: etcd's member list, Talos' discovery
// members and, when a Kubernetes API can be reached, the Kubernetes nodes. A node of
// talops.yaml, by its name, a name it goes by (aliases) or its address, is not extra. What cannot be asked is noted and
// left out: the plan is still made of what could be read.
func discover(ctx context.Context, d *Deps, nodes []cluster.Node, read []talos.Result, dialer talos.Dialer, kubeconfig string, aliases []string) discovery {
	var cp *cluster.Node

	for i, n := range nodes {
		if n.Role == cluster.RoleControlPlane && read[i].Err == nil && !read[i].Value.Maintenance {
			cp = &nodes[i]

			break
		}
	}

	if cp == nil {
		return discovery{}
	}

	cctx, cancel := context.WithTimeout(ctx, orDefault(d.TalosTimeout, talos.DefaultTimeout))
	defer cancel()

	n, err := dialer.Dial(cctx, cp.Address)
	if err != nil {
		d.note(fmt.Sprintf("finding nodes missing from talops.yaml: %s: %s\n", cp.Name, talos.OneLine(err)))

		return discovery{}
	}
	defer n.Close() //nolint:errcheck // read-only

	f := newFinds(nodes, aliases...)

	var out discovery

	if members, err := n.EtcdMembers(cctx); err != nil {
		d.note(fmt.Sprintf("finding nodes missing from talops.yaml: etcd members on %s: %s\n", cp.Name, talos.OneLine(err)))
	} else {
		out.etcd = []string{}

		for _, m := range members {
			out.etcd = append(out.etcd, m.Hostname)
			f.add(m.Hostname, cluster.RoleControlPlane, []string{m.Address()}, foundEtcd)
		}
	}

	if members, err := n.Members(cctx); err != nil {
		d.note(fmt.Sprintf("finding nodes missing from talops.yaml: discovery members on %s: %s\n", cp.Name, talos.OneLine(err)))
	} else {
		for _, m := range members {
			f.add(m.Hostname, cluster.Role(m.Role), m.Addresses, foundDiscovery)
		}
	}

	if names, err := kubeNodes(cctx, d, n, kubeconfig); err != nil {
		d.note(fmt.Sprintf("finding nodes missing from talops.yaml: Kubernetes nodes: %s\n", talos.OneLine(err)))
	} else {
		for _, name := range names {
			// A Node object says neither role nor address; etcd or discovery may have.
			f.add(name, "", nil, foundKube)
		}
	}

	out.extra = f.states()
	for i := range out.extra {
		out.extra[i].Unreachable = !answers(ctx, dialer, out.extra[i].Address, orDefault(d.TalosTimeout, talos.DefaultTimeout))
	}

	return out
}

// probeTimeout bounds the call that asks a found node whether it answers: a dead host
// would otherwise hold the plan for the whole Talos timeout.
const probeTimeout = 5 * time.Second

// answers reports whether the node at address answers a Version call over mTLS; a node
// without a known address does not.
func answers(ctx context.Context, dialer talos.Dialer, address string, timeout time.Duration) bool {
	if address == "" {
		return false
	}

	cctx, cancel := context.WithTimeout(ctx, min(timeout, probeTimeout))
	defer cancel()

	n, err := dialer.Dial(cctx, address)
	if err != nil {
		return false
	}
	defer n.Close() //nolint:errcheck // read-only

	_, err = n.Version(cctx)

	return err == nil
}

// kubeNodes lists the Kubernetes nodes, nil without a Kubernetes client: reached with the
// kubeconfig file, else the admin kubeconfig of the control plane n. Its keys are masked
// before it is used.
func kubeNodes(ctx context.Context, d *Deps, n talos.Node, kubeconfig string) ([]string, error) {
	if d.Kube == nil {
		return nil, nil
	}

	var (
		data []byte
		err  error
	)

	if kubeconfig != "" {
		if data, err = d.ReadFile(kubeconfig); err != nil {
			return nil, fmt.Errorf("read %s: %w", kubeconfig, err)
		}
	} else if data, err = n.Kubeconfig(ctx); err != nil {
		return nil, fmt.Errorf("read the kubeconfig: %w", err)
	}

	d.mask(kubeconfigSecrets(data)...)

	k, err := d.Kube(data)
	if err != nil {
		return nil, err
	}

	return k.Nodes(ctx)
}

// finds gathers the running nodes talops.yaml does not name, by name.
type finds struct {
	names, addresses map[string]bool
	found            map[string]*plan.NodeState
	where            map[string][]string
}

func newFinds(nodes []cluster.Node, aliases ...string) *finds {
	f := &finds{names: map[string]bool{}, addresses: map[string]bool{}, found: map[string]*plan.NodeState{}, where: map[string][]string{}}

	for _, n := range nodes {
		f.names[n.Name], f.addresses[n.Address] = true, true
	}

	for _, a := range aliases {
		f.names[a] = true
	}

	return f
}

// add records a node found at where, unless talops.yaml names it or one of its addresses.
func (f *finds) add(name string, role cluster.Role, addresses []string, where string) {
	if name == "" || f.names[name] || slices.ContainsFunc(addresses, func(a string) bool { return a != "" && f.addresses[a] }) {
		return
	}

	n := f.found[name]
	if n == nil {
		n = &plan.NodeState{Name: name}
		f.found[name] = n
	}

	if n.Role == "" || role == cluster.RoleControlPlane {
		n.Role = role
	}

	if n.Address == "" {
		if i := slices.IndexFunc(addresses, func(a string) bool { return a != "" }); i >= 0 {
			n.Address = addresses[i]
		}
	}

	if !slices.Contains(f.where[name], where) {
		f.where[name] = append(f.where[name], where)
	}
}

// states are the nodes found, by name, each saying where it was found.
func (f *finds) states() []plan.NodeState {
	var out []plan.NodeState

	for _, name := range slices.Sorted(maps.Keys(f.found)) {
		n := *f.found[name]
		if n.Role == "" {
			// Only Kubernetes knows it: a control plane would be an etcd member.
			n.Role = cluster.RoleWorker
		}

		n.Found = "found in " + joinAnd(f.where[name])
		out = append(out, n)
	}

	return out
}

// joinAnd joins "a", "b" and "c" as "a, b and c".
func joinAnd(parts []string) string {
	if len(parts) <= 1 {
		return strings.Join(parts, "")
	}

	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
