package rollout_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/rollout"
	"github.com/talops/talops/internal/talos"
)

// newNodes is a narrow fake of nodes waiting in maintenance mode: a config sent over the
// maintenance API makes the node answer over mTLS with it; Bootstrap starts its etcd.
type newNodes struct {
	mu sync.Mutex
	// stage is what the maintenance API says ("maintenance" unless set).
	stage      map[string]string
	configured map[string][]byte
	etcd       []string // the members, in the order they joined
	bootstraps int
	calls      []string
}

func (d *newNodes) log(call, address string) {
	d.mu.Lock()
	defer d.mu.Unlock()

	d.calls = append(d.calls, call+" "+address)
}

func (d *newNodes) Dial(_ context.Context, address string) (talos.Node, error) {
	d.mu.Lock()
	defer d.mu.Unlock()

	if d.configured[address] == nil {
		return nil, context.DeadlineExceeded
	}

	return &configuredNode{d: d, address: address}, nil
}

func (d *newNodes) DialMaintenance(_ context.Context, address string) (talos.Maintenance, error) {
	return &maintenanceNode{d: d, address: address}, nil
}

type maintenanceNode struct {
	d       *newNodes
	address string
}

func (m *maintenanceNode) Version(context.Context) (string, error) { return "v1.14.1", nil }
func (m *maintenanceNode) Close() error                            { return nil }

func (m *maintenanceNode) Status(context.Context) (talos.Status, error) {
	stage := m.d.stage[m.address]
	if stage == "" {
		stage = talos.StageMaintenance
	}

	return talos.Status{Stage: stage, Ready: true}, nil
}

func (m *maintenanceNode) Apply(_ context.Context, config []byte, dryRun bool) (talos.Applied, error) {
	if dryRun {
		m.d.log("dry-run", m.address)

		return talos.Applied{Mode: "NO_REBOOT"}, nil
	}

	m.d.log("maintenance apply", m.address)
	m.d.mu.Lock()
	m.d.configured[m.address] = config
	m.d.mu.Unlock()

	return talos.Applied{Mode: "NO_REBOOT"}, nil
}

type configuredNode struct {
	talos.Node // any call not overridden here is a test failure

	d       *newNodes
	address string
}

func (n *configuredNode) Version(context.Context) (string, error) { return "v1.14.1", nil }
func (n *configuredNode) BootID(context.Context) (string, error)  { return "boot", nil }
func (n *configuredNode) Close() error                            { return nil }

func (n *configuredNode) Status(context.Context) (talos.Status, error) {
	return talos.Status{Stage: "running", Unmet: []talos.Condition{{Name: "nodeReady", Reason: "no CNI"}}}, nil
}

func (n *configuredNode) MachineConfig(context.Context) ([]byte, error) {
	n.d.mu.Lock()
	defer n.d.mu.Unlock()

	return n.d.configured[n.address], nil
}

func (n *configuredNode) EtcdMembers(context.Context) ([]talos.EtcdMember, error) {
	n.d.mu.Lock()
	defer n.d.mu.Unlock()

	if len(n.d.etcd) == 0 {
		return nil, context.DeadlineExceeded // etcd is not running yet
	}

	var out []talos.EtcdMember
	for _, m := range n.d.etcd {
		out = append(out, talos.EtcdMember{Hostname: m})
	}

	return out, nil
}

func (n *configuredNode) EtcdErrors(context.Context) ([]string, error) { return nil, nil }

func (n *configuredNode) Bootstrap(context.Context) error {
	n.d.log("bootstrap", n.address)
	n.d.mu.Lock()
	defer n.d.mu.Unlock()

	n.d.bootstraps++
	n.d.etcd = append(n.d.etcd, n.address)

	return nil
}

// newCluster is three new control planes, the first bootstrapped, and two new workers.
func newCluster() []rollout.Step {
	var out []rollout.Step

	for i, name := range []string{"cp1", "cp2", "cp3", "w1", "w2"} {
		role := cluster.RoleControlPlane
		if name[0] == 'w' {
			role = cluster.RoleWorker
		}

		out = append(out, rollout.Step{
			Node:    plan.Node{Name: name, Role: role, Action: plan.Create, ConfigChanged: true},
			Address: name, Config: []byte("version: v1alpha1\nmachine:\n  type: " + string(role) + "\n  token: " + name + "\n"),
			Version: "v1.14.1", Bootstrap: i == 0,
		})
	}

	return out
}

func TestRun_NewClusterFromMaintenanceModeIsBootstrappedOnceAndJoined(t *testing.T) {
	d := &newNodes{configured: map[string][]byte{}}

	// Control planes join etcd when configured, as a real one does once bootstrapped.
	rep := rollout.Run(context.Background(), &joining{d}, "lab", "hash", newCluster(), options)

	for _, n := range rep.Nodes {
		if n.Outcome != rollout.Applied {
			t.Errorf("%s: %s — %s", n.Name, n.Outcome, n.Detail)
		}
	}

	if d.bootstraps != 1 {
		t.Errorf("Bootstrap was called %d times, want once", d.bootstraps)
	}

	want := "maintenance apply cp1, bootstrap cp1, maintenance apply cp2, maintenance apply cp3, maintenance apply w1, maintenance apply w2"
	if got := strings.Join(d.calls, ", "); got != want {
		t.Errorf("calls:\n%s\nwant\n%s", got, want)
	}

	if !strings.HasSuffix(rep.Nodes[0].Detail, "; etcd bootstrapped") || !strings.Contains(rep.Nodes[0].Detail, "not ready, as before the change; unmet: nodeReady (no CNI)") {
		t.Errorf("cp1: %s", rep.Nodes[0].Detail)
	}
}

// joining makes a configured control plane join etcd once some member runs it.
type joining struct{ *newNodes }

func (j *joining) DialMaintenance(ctx context.Context, address string) (talos.Maintenance, error) {
	m, _ := j.newNodes.DialMaintenance(ctx, address)

	return &joiner{maintenanceNode: m.(*maintenanceNode)}, nil
}

type joiner struct{ *maintenanceNode }

func (j *joiner) Apply(ctx context.Context, config []byte, dryRun bool) (talos.Applied, error) {
	a, err := j.maintenanceNode.Apply(ctx, config, dryRun)

	j.d.mu.Lock()
	defer j.d.mu.Unlock()

	if !dryRun && len(j.d.etcd) > 0 && strings.Contains(string(config), "controlplane") {
		j.d.etcd = append(j.d.etcd, j.address)
	}

	return a, err
}

func TestRun_ANodeNotInMaintenanceModeIsNeverSentAConfigInsecurely(t *testing.T) {
	d := &newNodes{configured: map[string][]byte{}, stage: map[string]string{"cp1": "running"}}

	rep := rollout.Run(context.Background(), d, "lab", "hash", newCluster()[:1], options)

	if rep.Nodes[0].Outcome != rollout.Failed || !strings.Contains(rep.Nodes[0].Detail, "the node is in stage running, not maintenance") || len(d.calls) != 0 {
		t.Errorf("cp1: %+v, calls %v", rep.Nodes[0], d.calls)
	}
}

func TestRun_DryRunOfANewNodeSendsNothing(t *testing.T) {
	d := &newNodes{configured: map[string][]byte{}}

	o := options
	o.DryRun = true

	rep := rollout.Run(context.Background(), d, "lab", "hash", newCluster()[:1], o)

	if rep.Nodes[0].Outcome != rollout.DryRun || rep.Nodes[0].Detail != "the node is in maintenance mode and accepts its first config; talops would bootstrap etcd on it" ||
		strings.Join(d.calls, ",") != "dry-run cp1" || d.bootstraps != 0 {
		t.Errorf("cp1: %+v, calls %v", rep.Nodes[0], d.calls)
	}
}
