package rollout_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/siderolabs/talos/pkg/machinery/config/machine"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/rollout"
	"github.com/talops/talops/internal/talos"
	"github.com/talops/talops/internal/talos/talostest"
)

// kubeCalls is a hand-written fake of the rollout's Kubernetes side: it records each call
// and fails a drain of the nodes in failDrain.
type kubeCalls struct {
	mu        sync.Mutex
	calls     []string
	failDrain string
}

func (k *kubeCalls) record(call string) {
	k.mu.Lock()
	defer k.mu.Unlock()

	k.calls = append(k.calls, call)
}

func (k *kubeCalls) Drain(_ context.Context, node string, _ time.Duration, _ func(string)) error {
	k.record("drain " + node)

	if node == k.failDrain {
		return errors.New("pod web-1 cannot be evicted: its PodDisruptionBudget allows no disruption")
	}

	return nil
}

func (k *kubeCalls) Uncordon(_ context.Context, node string) error {
	k.record("uncordon " + node)

	return nil
}

func (k *kubeCalls) DeleteNode(_ context.Context, node string) error {
	k.record("delete " + node)

	return nil
}

// removalLab is a running cluster of fake nodes sharing one etcd, each on the least config
// of its role,: control planes cp1…,
// then workers w1…, at 10.0.1.1, .2, …
type removalLab struct {
	cluster *talostest.Cluster
	servers map[string]*talostest.Server
	steps   map[string]rollout.Step
	d       talos.Dialer

	mu        sync.Mutex
	endpoints map[string]string
}

// kill makes the node stop answering, as a dead host: its address leads nowhere, while
// etcd (shared by the lab) still lists it.
func (l *removalLab) kill(t *testing.T, name string) {
	t.Helper()

	l.mu.Lock()
	defer l.mu.Unlock()

	l.endpoints[l.steps[name].Address] = talostest.Closed(t)
}

func newRemovalLab(t *testing.T, cps, workers int, mode string) *removalLab {
	t.Helper()

	encode := func(typ machine.Type) []byte {
		return []byte("version: v1alpha1\nmachine:\n  type: " + typ.String() + "\n  token: fake\n  ca:\n    crt: ZmFrZQ==\ncluster:\n  clusterName: lab\n  controlPlane:\n    endpoint: https://10.0.1.100:6443\n")
	}

	ca := talostest.NewCA(t)
	l := &removalLab{cluster: &talostest.Cluster{}, servers: map[string]*talostest.Server{}, steps: map[string]rollout.Step{}, endpoints: map[string]string{}}

	for i := range cps + workers {
		name, role, typ := "cp"+string(rune('1'+i)), cluster.RoleControlPlane, machine.TypeControlPlane
		if i >= cps {
			name, role, typ = "w"+string(rune('1'+i-cps)), cluster.RoleWorker, machine.TypeWorker
		}

		addr := "10.0.1." + string(rune('1'+i))
		cfg := encode(typ)
		l.servers[name] = talostest.Start(t, ca, talostest.Node{Name: name, Address: addr, Config: cfg, Version: "v1.14.1", Cluster: l.cluster, Mode: mode})
		l.endpoints[addr] = l.servers[name].Addr
		l.steps[name] = rollout.Step{Node: plan.Node{Name: name, Role: role, Action: plan.Noop}, Address: addr, Config: cfg, Version: "v1.14.1"}
	}

	d, err := talos.NewDialer(talos.Options{
		Talosconfig: talostest.Talosconfig(t, "lab", ca.PEM, ca.ClientCert(t)),
		Endpoint: func(address string) string {
			l.mu.Lock()
			defer l.mu.Unlock()

			return l.endpoints[address]
		},
	})
	if err != nil {
		t.Fatal(err)
	}

	l.d = d

	return l
}

// plan is every node of the lab in name order, the ones named removed.
func (l *removalLab) plan(removed ...string) []rollout.Step {
	var out []rollout.Step

	for _, name := range []string{"cp1", "cp2", "cp3", "cp4", "w1", "w2"} {
		s, ok := l.steps[name]
		if !ok {
			continue
		}

		if slices.Contains(removed, name) {
			s.Node.Action = plan.Remove
		}

		out = append(out, s)
	}

	return out
}

func removeOptions(k rollout.Kube) rollout.Options {
	o := rollout.Options{Mode: talos.ModeAuto, Parallel: 2, CallTimeout: 2 * time.Second, GateTimeout: 3 * time.Second, GateInterval: 10 * time.Millisecond}
	if k != nil {
		o.Kube = k
	}

	return o
}

func results(r *rollout.Report) []string {
	var out []string
	for _, n := range r.Nodes {
		out = append(out, n.Name+" "+string(n.Outcome)+": "+n.Detail)
	}

	return out
}

func TestRun_RemovalsRunLastAndDrainResetAndDeleteEachNode(t *testing.T) {
	t.Parallel()

	l := newRemovalLab(t, 3, 2, "")
	k := &kubeCalls{}

	// The plan lists the removed nodes first: they still run after every other node.
	steps := l.plan("cp2", "w1")
	slices.SortStableFunc(steps, func(a, b rollout.Step) int {
		return boolRank(a.Node.Action != plan.Remove) - boolRank(b.Node.Action != plan.Remove)
	})

	rep := rollout.Run(context.Background(), l.d, "lab", "hash", steps, removeOptions(k))

	want := []string{
		"cp1 skipped: already in the desired state",
		"cp3 skipped: already in the desired state",
		"w2 skipped: already in the desired state",
		"cp2 applied: removed: drained, reset, left etcd, Node deleted",
		"w1 applied: removed: drained, reset, Node deleted",
	}
	if got := results(rep); !slices.Equal(got, want) {
		t.Fatalf("report\n got %q\nwant %q", got, want)
	}

	if want := []string{"drain cp2", "delete cp2", "drain w1", "delete w1"}; !slices.Equal(k.calls, want) {
		t.Errorf("kube calls %q, want %q", k.calls, want)
	}

	if got := l.cluster.EtcdMembers(); !slices.Equal(got, []string{"cp1", "cp3"}) {
		t.Errorf("etcd members %v, want cp1 and cp3", got)
	}

	for _, name := range []string{"cp2", "w1"} {
		if r := l.servers[name].Resets(); len(r) != 1 || !r[0].Graceful || !r[0].Reboot || !slices.Equal(r[0].Wiped, talos.WipeToMaintenance) {
			t.Errorf("%s resets %+v, want one graceful reset to maintenance mode", name, r)
		}
	}

	if r := l.servers["cp2"].Resets(); !r[0].LeftEtcd {
		t.Errorf("cp2 did not leave etcd by itself: %+v", r)
	}
}

func boolRank(b bool) int {
	if b {
		return 1
	}

	return 0
}

func TestRun_WithoutKubernetesARemovedNodeIsResetWithoutADrain(t *testing.T) {
	t.Parallel()

	l := newRemovalLab(t, 1, 1, "")

	rep := rollout.Run(context.Background(), l.d, "lab", "hash", l.plan("w1"), removeOptions(nil))

	if got := rep.Nodes[1]; got.Outcome != rollout.Applied || got.Detail != "removed: not drained (no Kubernetes API), reset, Node not deleted (no Kubernetes API)" {
		t.Errorf("w1: %+v", got)
	}

	if len(l.servers["w1"].Resets()) != 1 {
		t.Errorf("w1 resets %+v", l.servers["w1"].Resets())
	}
}

func TestRun_AFailedDrainResetsNothingAndStopsTheRemovals(t *testing.T) {
	t.Parallel()

	l := newRemovalLab(t, 1, 2, "")
	k := &kubeCalls{failDrain: "w1"}

	rep := rollout.Run(context.Background(), l.d, "lab", "hash", l.plan("w1", "w2"), removeOptions(k))

	if got := rep.Nodes[1]; got.Outcome != rollout.Failed || got.Detail != "not removed: drain: pod web-1 cannot be evicted: its PodDisruptionBudget allows no disruption; it was not reset" || got.Cordoned {
		t.Errorf("w1: %+v", got)
	}

	if got := rep.Nodes[2]; got.Outcome != rollout.NotAttempted {
		t.Errorf("w2: %+v, want not attempted", got)
	}

	if len(l.servers["w1"].Resets())+len(l.servers["w2"].Resets()) != 0 || !slices.Equal(k.calls, []string{"drain w1", "uncordon w1"}) {
		t.Errorf("resets w1 %v w2 %v, kube %q", l.servers["w1"].Resets(), l.servers["w2"].Resets(), k.calls)
	}
}

// In container mode a reset stops the node without leaving etcd: talops removes its
// member from another control plane.
func TestRun_AControlPlaneThatDidNotLeaveEtcdIsRemovedFromIt(t *testing.T) {
	t.Parallel()

	l := newRemovalLab(t, 3, 0, "container")

	rep := rollout.Run(context.Background(), l.d, "lab", "hash", l.plan("cp3"), removeOptions(&kubeCalls{}))

	if got := rep.Nodes[2]; got.Outcome != rollout.Applied || got.Detail != "removed: drained, reset, removed from etcd (it did not leave by itself), Node deleted" {
		t.Errorf("cp3: %+v", got)
	}

	if got := l.cluster.EtcdMembers(); !slices.Equal(got, []string{"cp1", "cp2"}) {
		t.Errorf("etcd members %v", got)
	}
}

func TestRun_ADryRunRemovesNothing(t *testing.T) {
	t.Parallel()

	l := newRemovalLab(t, 3, 0, "")
	k := &kubeCalls{}
	o := removeOptions(k)
	o.DryRun = true

	rep := rollout.Run(context.Background(), l.d, "lab", "hash", l.plan("cp3"), o)

	if got := rep.Nodes[2]; got.Outcome != rollout.DryRun || got.Detail != "talops would drain it, reset it (it leaves etcd first), delete its Node" {
		t.Errorf("cp3: %+v", got)
	}

	if len(k.calls) != 0 || len(l.servers["cp3"].Resets()) != 0 || len(l.cluster.EtcdMembers()) != 3 {
		t.Errorf("a dry run touched something: kube %q, resets %v, members %v", k.calls, l.servers["cp3"].Resets(), l.cluster.EtcdMembers())
	}
}

func TestRun_NoDrainResetsARemovedNodeWithoutADrainAndStillDeletesItsNode(t *testing.T) {
	t.Parallel()

	l := newRemovalLab(t, 1, 1, "")
	k := &kubeCalls{}
	o := removeOptions(k)
	o.NoDrain = true

	rep := rollout.Run(context.Background(), l.d, "lab", "hash", l.plan("w1"), o)

	if got := rep.Nodes[1]; got.Outcome != rollout.Applied || got.Detail != "removed: not drained (--no-drain), reset, Node deleted" {
		t.Errorf("w1: %+v", got)
	}

	if !slices.Equal(k.calls, []string{"delete w1"}) {
		t.Errorf("kube calls %q, want only the Node deleted", k.calls)
	}
}

// unreachable marks the removals of the named nodes as ones that do not answer.
func unreachable(steps []rollout.Step, names ...string) []rollout.Step {
	for i := range steps {
		if slices.Contains(names, steps[i].Node.Name) {
			steps[i].Node.Unreachable = true
		}
	}

	return steps
}

func TestRun_ADeadControlPlaneLeavesEtcdFirstWithoutADrainOrAReset(t *testing.T) {
	t.Parallel()

	l := newRemovalLab(t, 4, 0, "")
	l.kill(t, "cp4")

	// cp3's removal asks etcd's health of the control planes left: it must not count the
	// dead member, which goes first.
	k := &kubeCalls{}
	rep := rollout.Run(context.Background(), l.d, "lab", "hash", unreachable(l.plan("cp3", "cp4"), "cp4"), removeOptions(k))

	want := []string{
		"cp4 applied: removed without a drain or a reset (it does not answer): etcd member removed, Node deleted",
		"cp1 skipped: already in the desired state",
		"cp2 skipped: already in the desired state",
		"cp3 applied: removed: drained, reset, left etcd, Node deleted",
	}
	if got := results(rep); !slices.Equal(got, want) {
		t.Fatalf("report\n got %q\nwant %q", got, want)
	}

	if got := l.cluster.EtcdMembers(); !slices.Equal(got, []string{"cp1", "cp2"}) {
		t.Errorf("etcd members %v, want cp1 and cp2", got)
	}

	if want := []string{"delete cp4", "drain cp3", "delete cp3"}; !slices.Equal(k.calls, want) {
		t.Errorf("kube calls %q, want %q", k.calls, want)
	}

	if r := l.servers["cp4"].Resets(); len(r) != 0 {
		t.Errorf("cp4 was reset: %+v", r)
	}
}

func TestRun_ADeadWorkerOnlyLosesItsNode(t *testing.T) {
	t.Parallel()

	l := newRemovalLab(t, 1, 1, "")
	l.kill(t, "w1")

	k := &kubeCalls{}
	rep := rollout.Run(context.Background(), l.d, "lab", "hash", unreachable(l.plan("w1"), "w1"), removeOptions(k))

	if got := rep.Nodes[0]; got.Name != "w1" || got.Outcome != rollout.Applied || got.Detail != "removed without a drain or a reset (it does not answer): Node deleted" {
		t.Errorf("w1: %+v", got)
	}

	if !slices.Equal(k.calls, []string{"delete w1"}) || len(l.cluster.EtcdMembers()) != 1 {
		t.Errorf("kube calls %q, etcd members %v", k.calls, l.cluster.EtcdMembers())
	}
}

func TestRun_ANodeThatAnswersAgainIsNotRemovedAsADeadOne(t *testing.T) {
	t.Parallel()

	l := newRemovalLab(t, 3, 0, "")
	k := &kubeCalls{}

	rep := rollout.Run(context.Background(), l.d, "lab", "hash", unreachable(l.plan("cp3"), "cp3"), removeOptions(k))

	if got := rep.Nodes[0]; got.Outcome != rollout.Failed || got.Detail != "not removed: it answers now, but the plan removes it as a node that does not: plan again (talops plan --live), which removes it with a drain and a reset" {
		t.Errorf("cp3: %+v", got)
	}

	if len(k.calls) != 0 || len(l.cluster.EtcdMembers()) != 3 {
		t.Errorf("kube calls %q, etcd members %v", k.calls, l.cluster.EtcdMembers())
	}

	if got := rep.Nodes[1]; got.Outcome != rollout.NotAttempted {
		t.Errorf("cp1 after the failed removal: %+v", got)
	}
}

func TestRun_ADryRunOfADeadNodeSaysWhatWouldGo(t *testing.T) {
	t.Parallel()

	l := newRemovalLab(t, 3, 0, "")
	l.kill(t, "cp2")

	o := removeOptions(&kubeCalls{})
	o.DryRun = true

	rep := rollout.Run(context.Background(), l.d, "lab", "hash", unreachable(l.plan("cp2"), "cp2"), o)

	if got := rep.Nodes[0]; got.Outcome != rollout.DryRun || got.Detail != "talops would remove its etcd member and delete its Node (it does not answer: no drain, no reset)" {
		t.Errorf("cp2: %+v", got)
	}

	if len(l.cluster.EtcdMembers()) != 3 {
		t.Errorf("a dry run removed a member: %v", l.cluster.EtcdMembers())
	}
}
