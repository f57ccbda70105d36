package app_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/talops/talops/internal/applied"
	"github.com/talops/talops/internal/health"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/mask"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/rollout"
	"github.com/talops/talops/internal/secrets"
	"github.com/talops/talops/internal/talos/talostest"
	"github.com/talops/talops/internal/testlab"
)

// fakeKube is a hand-written fake of the cluster's Kubernetes API: a set of Node objects
// and a record of the calls that change something.
type fakeKube struct {
	mu    sync.Mutex
	nodes []string
	calls []string
	// addresses are the InternalIPs of its Nodes, by name.
	addresses map[string][]string
	// onLock, when set, is called as the apply lock is taken: its error refuses it.
	onLock func() error
}

func (k *fakeKube) record(call string) {
	k.mu.Lock()
	defer k.mu.Unlock()

	k.calls = append(k.calls, call)
}

func (k *fakeKube) Drain(_ context.Context, node string, _ time.Duration, _ func(string)) error {
	k.record("drain " + node)

	return nil
}

func (k *fakeKube) Uncordon(_ context.Context, node string) error {
	k.record("uncordon " + node)

	return nil
}

func (k *fakeKube) DeleteNode(_ context.Context, node string) error {
	k.record("delete " + node)

	k.mu.Lock()
	defer k.mu.Unlock()

	k.nodes = slices.DeleteFunc(k.nodes, func(n string) bool { return n == node })

	return nil
}

func (k *fakeKube) Lock(context.Context, string, string, func(error)) (func(context.Context) error, error) {
	if k.onLock != nil {
		if err := k.onLock(); err != nil {
			return nil, err
		}
	}

	return func(context.Context) error { return nil }, nil
}

func (k *fakeKube) Nodes(context.Context) ([]string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()

	return slices.Clone(k.nodes), nil
}

func (k *fakeKube) InternalIPs(context.Context) (map[string][]string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()

	return k.addresses, nil
}

// HealthObjects finds no object: no test here has health checks.
func (k *fakeKube) HealthObjects(context.Context, health.Check) ([]health.Object, error) {
	return nil, nil
}

// ReadProgress finds no earlier rollout; WriteProgress keeps nothing.
func (k *fakeKube) ReadProgress(context.Context, string) (*applied.Progress, error) { return nil, nil }

func (k *fakeKube) WriteProgress(context.Context, string, applied.Progress) error { return nil }

func (k *fakeKube) recorded() []string {
	k.mu.Lock()
	defer k.mu.Unlock()

	return slices.Clone(k.calls)
}

// newClusterLab is the reference lab made a cluster of three control planes (k8s-master,
// k8s-node2, k8s-node3) and two workers (k8s-node1, k8s-node4), every node a fake booted
// into maintenance mode at its address of talops.yaml, all sharing one etcd.
type newClusterLab struct {
	// boot starts a node that was left off (its VM not created yet).
	boot func(name string)
	// kill makes a running node stop answering, as a dead host (etcd still lists it).
	kill    func(name string)
	d       *app.Deps
	files   cluster.MapFiles
	servers map[string]*talostest.Server
	etcd    *talostest.Cluster
	journal *talostest.Journal
	kube    *fakeKube
	kubeErr error
}

var clusterNodes = []string{"k8s-master", "k8s-node1", "k8s-node2", "k8s-node3", "k8s-node4"}

func startNewCluster(t *testing.T) *newClusterLab {
	t.Helper()

	return startNewClusterWithout(t)
}

// startNewClusterWithout is startNewCluster with some nodes not started: l.boot starts one.
func startNewClusterWithout(t *testing.T, off ...string) *newClusterLab {
	t.Helper()

	files := testlab.Files(t)
	for _, name := range []string{"k8s-node2", "k8s-node3"} {
		testlab.Edit(t, files, "talops.yaml", "- name: "+name+"\n    address: 10.0.20.10"+name[len(name)-1:]+"\n    role: worker", "- name: "+name+"\n    address: 10.0.20.10"+name[len(name)-1:]+"\n    role: controlplane")
	}

	l := &newClusterLab{files: files, servers: map[string]*talostest.Server{}, etcd: &talostest.Cluster{}, journal: &talostest.Journal{}, kube: &fakeKube{}}
	ca := talostest.NewCA(t)
	endpoints := map[string]string{}

	var endpointsMu sync.Mutex

	// Each node booted the factory image of its schematic, as talops' boot images are.
	ids, err := render.SchematicIDs(testlab.Load(t, files))
	if err != nil {
		t.Fatal(err)
	}

	l.boot = func(name string) {
		i := slices.Index(clusterNodes, name)
		addr := fmt.Sprintf("10.0.20.%d", 100+i)

		id := ids["base"]
		if name == "k8s-node1" {
			id = ids["gpu"]
		}

		s := talostest.Start(t, ca, talostest.Node{Name: name, Address: addr, Version: testlab.Talos, SchematicID: id, Cluster: l.etcd, Journal: l.journal})

		endpointsMu.Lock()
		defer endpointsMu.Unlock()

		l.servers[name] = s
		endpoints[addr] = s.Addr
	}

	l.kill = func(name string) {
		endpointsMu.Lock()
		defer endpointsMu.Unlock()

		delete(endpoints, fmt.Sprintf("10.0.20.%d", 100+slices.Index(clusterNodes, name)))
	}

	for _, name := range clusterNodes {
		if !slices.Contains(off, name) {
			l.boot(name)
		}
	}

	talosconfig := filepath.Join(t.TempDir(), "talosconfig")
	if err := os.WriteFile(talosconfig, talostest.TalosconfigBytes(t, talostest.Talosconfig(t, "homelab", ca.PEM, ca.ClientCert(t))), 0o600); err != nil {
		t.Fatal(err)
	}

	env := map[string]string{"TALOSCONFIG": talosconfig}
	getenv := func(k string) string { return env[k] }

	var m *mask.Masker

	l.d = &app.Deps{
		Outside: app.Outside{
			Getenv:   getenv,
			ReadFile: os.ReadFile,
			OpenDir: func(dir string) (cluster.Files, func() error, error) {
				if dir != "lab" {
					return nil, nil, errors.New("no such directory")
				}

				return files, func() error { return nil }, nil
			},
			TalosEndpoint: func(address string) string {
				endpointsMu.Lock()
				defer endpointsMu.Unlock()

				if e, ok := endpoints[address]; ok {
					return e
				}

				return "127.0.0.1:1" // a node not booted yet: nothing listens
			},
			TalosTimeout: 3 * time.Second,
			GateTimeout:  5 * time.Second,
			GateInterval: 10 * time.Millisecond,
			Kube: func(kubeconfig []byte) (app.Kube, error) {
				if !strings.Contains(string(kubeconfig), "client-key-data") {
					return nil, errors.New("not an admin kubeconfig")
				}

				return l.kube, l.kubeErr
			},
		},
		Mask:    func(values ...string) { m = mask.New(append(m.Values(), values...)...) },
		Masker:  func() *mask.Masker { return m },
		Secrets: &secrets.Loader{Getenv: getenv, ReadFile: os.ReadFile, Now: func() time.Time { return time.Unix(0, 0) }},
	}

	return l
}

func (l *newClusterLab) apply(t *testing.T, opts app.ApplyOptions) (*rollout.Report, error) {
	t.Helper()

	opts.Dir, opts.Mode, opts.Parallel, opts.NoEtcdBackup = "lab", "auto", 1, true

	res, err := app.Apply(context.Background(), l.d, opts)
	if err != nil {
		return nil, err
	}

	return res.Report, nil
}

func outcomesOf(r *rollout.Report) []string {
	var out []string
	for _, n := range r.Nodes {
		out = append(out, n.Name+" "+string(n.Action)+" "+string(n.Outcome))
	}

	return out
}

// create takes the new cluster from maintenance mode to running in one apply, and
// Kubernetes then lists its five nodes.
func (l *newClusterLab) create(t *testing.T) {
	t.Helper()

	rep, err := l.apply(t, app.ApplyOptions{})
	if err != nil {
		t.Fatalf("apply of the new cluster: %v", err)
	}

	want := []string{
		"k8s-master create applied", "k8s-node2 create applied", "k8s-node3 create applied",
		"k8s-node1 create applied", "k8s-node4 create applied",
	}
	if got := outcomesOf(rep); !slices.Equal(got, want) {
		t.Fatalf("first apply\n got %q\nwant %q\n%+v", got, want, rep.Nodes)
	}

	for _, s := range l.servers {
		s.WaitRunning(t)
	}

	l.kube.nodes = slices.Clone(clusterNodes)
}

func TestApply_ANewClusterOfThreeControlPlanesAndTwoWorkersIsBootstrappedOnceAndJoined(t *testing.T) {
	t.Parallel()

	l := startNewCluster(t)
	l.create(t)

	bootstraps := 0
	for name, s := range l.servers {
		bootstraps += s.Bootstraps()

		if s.InMaintenance() || len(s.Applied()) != 1 {
			t.Errorf("%s: in maintenance %v, configs taken %d", name, s.InMaintenance(), len(s.Applied()))
		}
	}

	if bootstraps != 1 || l.servers["k8s-master"].Bootstraps() != 1 {
		t.Errorf("Bootstrap called %d times, want once, on k8s-master", bootstraps)
	}

	if got := l.etcd.EtcdMembers(); !slices.Equal(got, []string{"k8s-master", "k8s-node2", "k8s-node3"}) {
		t.Errorf("etcd members %v, want the three control planes in the order they joined", got)
	}

	// The order the nodes were configured in: the first control plane, its bootstrap, the
	// other control planes one at a time, then the workers.
	want := []string{
		"k8s-master ApplyConfiguration AUTO (maintenance)", "k8s-master Bootstrap",
		"k8s-node2 ApplyConfiguration AUTO (maintenance)", "k8s-node3 ApplyConfiguration AUTO (maintenance)",
		"k8s-node1 ApplyConfiguration AUTO (maintenance)", "k8s-node4 ApplyConfiguration AUTO (maintenance)",
	}
	if got := l.journal.Entries(); !slices.Equal(got, want) {
		t.Errorf("calls\n got %q\nwant %q", got, want)
	}

	rep, err := l.apply(t, app.ApplyOptions{})
	if err != nil {
		t.Fatalf("second apply: %v", err)
	}

	for _, n := range rep.Nodes {
		if n.Action != plan.Noop || n.Outcome != rollout.Skipped {
			t.Errorf("second apply: %s %s %s, want a no-op", n.Name, n.Action, n.Outcome)
		}
	}

	if len(l.journal.Entries()) != len(want) || len(l.kube.recorded()) != 0 {
		t.Errorf("the second apply changed something: %q, kube %q", l.journal.Entries(), l.kube.recorded())
	}
}

// removeNodes takes nodes out of talops.yaml.
// topLevel finds a line that starts a top-level key or comment of talops.yaml.
var topLevel = regexp.MustCompile(`\n[^ \n]`)

// declareApply appends an apply: section to the lab's talops.yaml: the options its
// reviewed plans declare.
func declareApply(files cluster.MapFiles, section string) {
	files["talops.yaml"] = append(files["talops.yaml"], []byte("apply:\n"+section)...)
}

func removeNodes(t *testing.T, files cluster.MapFiles, names ...string) {
	t.Helper()

	s := string(files["talops.yaml"])
	for _, name := range names {
		start := strings.Index(s, "  - name: "+name+"\n")
		if start < 0 {
			t.Fatalf("talops.yaml has no node %s", name)
		}

		// The node's entry ends at the next node, or at the next top-level key (the lab's
		// configVersion comes after its nodes).
		end := len(s)
		if i := strings.Index(s[start+1:], "  - name: "); i >= 0 {
			end = start + 1 + i
		}

		if loc := topLevel.FindStringIndex(s[start:]); loc != nil && start+loc[0]+1 < end {
			end = start + loc[0] + 1
		}

		s = s[:start] + s[end:]
	}

	files["talops.yaml"] = []byte(s)
}

func TestApply_RemovingNodesIsRefusedUnlessAllowedAndWithinQuorumThenDrainsResetsAndDeletes(t *testing.T) {
	t.Parallel()

	l := startNewCluster(t)
	l.create(t)

	calls := len(l.journal.Entries())
	untouched := func(when string) {
		t.Helper()

		if len(l.journal.Entries()) != calls || len(l.kube.recorded()) != 0 {
			t.Errorf("%s: nodes or Kubernetes were called: %q, kube %q", when, l.journal.Entries()[calls:], l.kube.recorded())
		}
	}

	original := slices.Clone(l.files["talops.yaml"])

	// Two of three control planes would leave etcd without its quorum.
	removeNodes(t, l.files, "k8s-node2", "k8s-node3")

	_, err := l.apply(t, app.ApplyOptions{AllowRemove: true})

	var refused *app.RefusedError
	if !errors.As(err, &refused) || !slices.Contains(refused.Reasons, "removing k8s-node2, k8s-node3 would leave 1 of etcd's 3 members, fewer than its quorum of 2: remove at most 1 control plane per apply") {
		t.Fatalf("removing two of three control planes: %v", err)
	}

	untouched("a removal that breaks quorum")

	l.files["talops.yaml"] = original
	removeNodes(t, l.files, "k8s-node3", "k8s-node4")

	_, err = l.apply(t, app.ApplyOptions{})
	if !errors.As(err, &refused) || !slices.Contains(refused.Reasons, "node k8s-node3 is not in talops.yaml: apply removes a node (drain, reset, delete its Kubernetes Node) only with --allow-remove (the action's input allow-remove: true); or put it back in talops.yaml") {
		t.Fatalf("a removal without --allow-remove: %v", err)
	}

	untouched("a removal without --allow-remove")

	// The helper applies without an etcd snapshot, as the reviewed talops.yaml says.
	declareApply(l.files, "  allowRemove: true\n  etcdBackup: false\n")

	p, err := app.Plan(context.Background(), l.d, app.PlanOptions{Dir: "lab", Live: true})
	if err != nil {
		t.Fatal(err)
	}

	if n := p.Plan.Nodes[len(p.Plan.Nodes)-1]; n.Name != "k8s-node4" || n.Action != plan.Remove ||
		!strings.HasPrefix(n.Reasons[0], "node runs in the cluster (found in Talos' cluster discovery and the Kubernetes nodes) but is not in talops.yaml") {
		t.Errorf("plan --live of a node missing from talops.yaml: %+v", n)
	}

	// The removals of the plan reviewed (its hash), not --allow-remove alone.
	_, err = l.apply(t, app.ApplyOptions{AllowRemove: true})
	if !errors.As(err, &refused) || !slices.Contains(refused.Reasons, "node k8s-node4 would be removed, but no reviewed plan says so: review the plan that removes it (talops plan --live) and apply with its hash (--plan-hash H)") {
		t.Fatalf("a removal no reviewed plan says: %v", err)
	}

	untouched("a removal no reviewed plan says")

	rep, err := l.apply(t, app.ApplyOptions{AllowRemove: true, PlanHash: p.Plan.Hash})
	if err != nil {
		t.Fatalf("apply --allow-remove: %v", err)
	}

	want := []string{
		"k8s-master noop skipped", "k8s-node2 noop skipped", "k8s-node1 noop skipped",
		"k8s-node3 remove applied", "k8s-node4 remove applied",
	}
	if got := outcomesOf(rep); !slices.Equal(got, want) {
		t.Fatalf("apply --allow-remove\n got %q\nwant %q\n%+v", got, want, rep.Nodes)
	}

	if d := rep.Nodes[3].Detail; d != "removed: drained, reset, left etcd, Node deleted" {
		t.Errorf("k8s-node3: %q", d)
	}

	if d := rep.Nodes[4].Detail; d != "removed: drained, reset, Node deleted" {
		t.Errorf("k8s-node4: %q", d)
	}

	if got := l.kube.recorded(); !slices.Equal(got, []string{"drain k8s-node3", "delete k8s-node3", "drain k8s-node4", "delete k8s-node4"}) {
		t.Errorf("kube calls %q", got)
	}

	if got := l.etcd.EtcdMembers(); !slices.Equal(got, []string{"k8s-master", "k8s-node2"}) {
		t.Errorf("etcd members %v", got)
	}

	for _, name := range []string{"k8s-node3", "k8s-node4"} {
		if r := l.servers[name].Resets(); len(r) != 1 || !r[0].Graceful {
			t.Errorf("%s resets %+v", name, r)
		}

		l.servers[name].WaitRunning(t)

		if !l.servers[name].InMaintenance() {
			t.Errorf("%s is not back in maintenance mode", name)
		}
	}

	rep, err = l.apply(t, app.ApplyOptions{AllowRemove: true})
	if err != nil {
		t.Fatalf("apply after the removal: %v", err)
	}

	if got := outcomesOf(rep); !slices.Equal(got, want[:3]) {
		t.Errorf("apply after the removal: %q, want the three nodes left, untouched", got)
	}
}

func TestApply_DeadNodesAreRemovedWithoutADrainOrAResetDeadControlPlaneFirst(t *testing.T) {
	t.Parallel()

	l := startNewCluster(t)
	l.create(t)

	l.kill("k8s-node3")
	l.kill("k8s-node4")
	removeNodes(t, l.files, "k8s-node3", "k8s-node4")
	declareApply(l.files, "  allowRemove: true\n  etcdBackup: false\n")

	p, err := app.Plan(context.Background(), l.d, app.PlanOptions{Dir: "lab", Live: true})
	if err != nil {
		t.Fatal(err)
	}

	for _, n := range p.Plan.Nodes {
		if n.Action != plan.Remove {
			continue
		}

		if !n.Unreachable || !strings.Contains(n.Reasons[0], "; it does not answer: apply --allow-remove ") {
			t.Errorf("plan --live of a dead node: %+v", n)
		}
	}

	rep, err := l.apply(t, app.ApplyOptions{AllowRemove: true, PlanHash: p.Plan.Hash})
	if err != nil {
		t.Fatalf("apply --allow-remove: %v", err)
	}

	want := []string{
		"k8s-node3 remove applied", "k8s-node4 remove applied",
		"k8s-master noop skipped", "k8s-node2 noop skipped", "k8s-node1 noop skipped",
	}
	if got := outcomesOf(rep); !slices.Equal(got, want) {
		t.Fatalf("apply --allow-remove\n got %q\nwant %q\n%+v", got, want, rep.Nodes)
	}

	if d := rep.Nodes[0].Detail; d != "removed without a drain or a reset (it does not answer): etcd member removed, Node deleted" {
		t.Errorf("k8s-node3: %q", d)
	}

	if d := rep.Nodes[1].Detail; d != "removed without a drain or a reset (it does not answer): Node deleted" {
		t.Errorf("k8s-node4: %q", d)
	}

	if got := l.kube.recorded(); !slices.Equal(got, []string{"delete k8s-node3", "delete k8s-node4"}) {
		t.Errorf("kube calls %q, want only the two Nodes deleted", got)
	}

	if got := l.etcd.EtcdMembers(); !slices.Equal(got, []string{"k8s-master", "k8s-node2"}) {
		t.Errorf("etcd members %v", got)
	}

	for _, name := range []string{"k8s-node3", "k8s-node4"} {
		if r := l.servers[name].Resets(); len(r) != 0 {
			t.Errorf("%s was reset: %+v", name, r)
		}
	}
}
