package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	clientconfig "github.com/siderolabs/talos/pkg/machinery/client/config"
	"github.com/siderolabs/talos/pkg/machinery/config/configloader"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/applied"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/health"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/talos/talostest"
	"github.com/talops/talops/internal/testlab"
)

// guideCommand is the talops command of docs/first-cluster.md that starts with prefix
// (a shell line, or a console line after its "$ "), split into its arguments after
// "talops".
func guideCommand(t *testing.T, prefix string) []string {
	t.Helper()

	guide := readFile(t, filepath.Join(testlab.Root(), "docs", "first-cluster.md"))

	for line := range strings.Lines(string(guide)) {
		line = strings.TrimPrefix(strings.TrimSuffix(line, "\n"), "$ ")
		if strings.HasPrefix(line, prefix) {
			return strings.Fields(line)[1:]
		}
	}

	t.Fatalf("docs/first-cluster.md has no command starting %q", prefix)

	return nil
}

// newClusterKube is the Kubernetes API of a cluster just created: its Nodes registered
// under the names the guide gives them, none of them Ready (no CNI runs yet).
type newClusterKube struct {
	mu    sync.Mutex
	calls []string
}

func (k *newClusterKube) add(call string) {
	k.mu.Lock()
	defer k.mu.Unlock()

	k.calls = append(k.calls, call)
}

func (k *newClusterKube) Drain(_ context.Context, node string, _ time.Duration, _ func(string)) error {
	k.add("drain " + node)

	return nil
}

func (k *newClusterKube) Uncordon(_ context.Context, node string) error {
	k.add("uncordon " + node)

	return nil
}

func (k *newClusterKube) DeleteNode(_ context.Context, node string) error {
	k.add("delete " + node)

	return nil
}

func (k *newClusterKube) Nodes(context.Context) ([]string, error) {
	return []string{"lab-cp1", "lab-worker1"}, nil
}

func (k *newClusterKube) InternalIPs(context.Context) (map[string][]string, error) {
	return nil, nil
}

func (k *newClusterKube) HealthObjects(context.Context, health.Check) ([]health.Object, error) {
	return nil, nil
}

func (k *newClusterKube) ReadProgress(context.Context, string) (*applied.Progress, error) {
	return nil, nil
}

func (k *newClusterKube) WriteProgress(context.Context, string, applied.Progress) error {
	return nil
}

func (k *newClusterKube) Lock(_ context.Context, cluster, _ string, _ func(error)) (func(context.Context) error, error) {
	k.add("lock " + cluster)

	return func(context.Context) error { k.add("release " + cluster); return nil }, nil
}

// Steps 6 and 8 of docs/first-cluster.md, run as written in the repository steps 2 to 4
// made, against two machines waiting in maintenance mode. Once configured they serve with
// the OS CA of the repository's own secrets bundle, as real nodes do, so the talosconfig
// `talops talosconfig` wrote is what authenticates every call after the install. apply
// asks before it changes anything, creates both nodes, bootstraps etcd once on lab-cp1
// and writes the admin kubeconfig where the guide says.
func TestFirstClusterGuide_TheFirstApplyRunsAsWritten(t *testing.T) {
	h := newDiskHarness(t)
	id, keyFile := ageKey(t)
	dir := filepath.Join(t.TempDir(), "lab")

	guideRepository(t, h, dir, id)

	h.env["SOPS_AGE_KEY_FILE"] = keyFile

	// The guide's commands name the repository ".".
	t.Chdir(dir)

	run := func(args ...string) {
		t.Helper()

		if err := h.run(args...); err != nil {
			out := h.stdout.String()
			t.Fatalf("talops %s: %v\n%s\n%s", strings.Join(args, " "), err, h.stderr.String(), out[strings.LastIndex(out, "Apply: ")+1:])
		}
	}

	// 6. the client config
	run(guideCommand(t, "talops talosconfig")...)

	// Its endpoints are the control plane's address, through which Talos proxies the calls
	// to every node; the fake nodes are no proxies, so the endpoints go and each node is
	// dialled at its own address (TalosEndpoint, below). Its CA, certificate and key stay
	// as written.
	tc, err := clientconfig.Open("talosconfig")
	if err != nil {
		t.Fatal(err)
	}

	for _, ctx := range tc.Contexts {
		ctx.Endpoints = nil
	}

	if err := tc.Save("talosconfig"); err != nil {
		t.Fatal(err)
	}

	// The machines: the nodes of talops.yaml, waiting for their first config, that take the
	// cluster's OS CA from it.
	out := t.TempDir()
	run("render", "--dir", ".", "--out", out)

	cfg, err := configloader.NewFromFile(filepath.Join(out, "lab-cp1.yaml"))
	if err != nil {
		t.Fatal(err)
	}

	issuing := cfg.Machine().Security().IssuingCA()
	ca := talostest.CAFrom(t, issuing.Crt, issuing.Key)

	files, err := cluster.OpenDir(".")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = files.Close() })

	c, err := cluster.Load(".", files)
	if err != nil {
		t.Fatal(err)
	}

	ids, err := render.SchematicIDs(c)
	if err != nil {
		t.Fatal(err)
	}

	etcd := &talostest.Cluster{}
	servers, endpoints := map[string]*talostest.Server{}, map[string]string{}

	for _, n := range c.Spec.Nodes {
		s := talostest.Start(t, ca, talostest.Node{
			Name: n.Name, Address: n.Address, Version: c.Spec.TalosVersion, SchematicID: ids[n.Schematic], Mode: "metal", Cluster: etcd,
		})
		servers[n.Name], endpoints[n.Address] = s, s.Addr
	}

	h.deps.TalosEndpoint = func(address string) string {
		if e, ok := endpoints[address]; ok {
			return e
		}

		return "127.0.0.1:1"
	}
	h.deps.TalosTimeout, h.deps.GateTimeout, h.deps.GateInterval = 3*time.Second, 5*time.Second, 10*time.Millisecond
	h.deps.Hostname = func() (string, error) { return "laptop", nil }

	kube := &newClusterKube{}

	var kubeconfigs [][]byte

	h.deps.Kube = func(kubeconfig []byte) (app.Kube, error) {
		kubeconfigs = append(kubeconfigs, kubeconfig)

		return kube, nil
	}

	var questions []string

	h.deps.Prompt = func(question string) (string, error) {
		questions = append(questions, question)

		return "yes", nil
	}
	h.deps.IsTerminal = func() bool { return true }

	// 8. the first apply
	apply := guideCommand(t, "talops apply")
	run(apply...)

	if len(questions) != 1 || !strings.Contains(questions[0], "Only \"yes\" applies it") {
		t.Errorf("apply asked %q, want one question before it changed anything", questions)
	}

	if !strings.Contains(h.stdout.String(), "Apply: lab — ") {
		t.Errorf("the report lacks its summary line:\n%s", h.stdout.String())
	}

	for name, s := range servers {
		if s.InMaintenance() {
			t.Errorf("%s still waits in maintenance mode", name)
		}
	}

	if got := servers["lab-cp1"].Bootstraps(); got != 1 {
		t.Errorf("etcd bootstrapped %d times on lab-cp1, want once", got)
	}

	if got := servers["lab-worker1"].Bootstraps(); got != 0 {
		t.Errorf("etcd bootstrapped %d times on lab-worker1, want never", got)
	}

	kubeconfig := readFile(t, filepath.Join(dir, "kubeconfig"))
	if !strings.Contains(string(kubeconfig), "kind: Config") {
		t.Errorf("kubeconfig is not a kubeconfig:\n%s", kubeconfig)
	}

	if fi, err := os.Stat(filepath.Join(dir, "kubeconfig")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("kubeconfig mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}

	// A second apply of the same repository changes nothing, and asks nothing.
	questions = nil

	run(slices.DeleteFunc(apply, func(a string) bool { return a == "--kubeconfig-out" || a == "kubeconfig" })...)

	if len(questions) != 0 {
		t.Errorf("an apply with nothing to do asked %q", questions)
	}

	// A new cluster's Kubernetes API does not answer during the first apply: no drain,
	// no lock. The second one reads the admin kubeconfig of the control plane it created.
	if len(kubeconfigs) == 0 || string(kubeconfigs[len(kubeconfigs)-1]) != string(kubeconfig) {
		t.Errorf("the Kubernetes client was made from %d kubeconfigs, the last not the one written", len(kubeconfigs))
	}

	if len(kube.calls) != 0 {
		t.Errorf("Kubernetes calls %q, want none", kube.calls)
	}
}
