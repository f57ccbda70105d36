package rollout_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-version"
	"github.com/siderolabs/talos/pkg/machinery/config/configloader"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/mask"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/rollout"
	"github.com/talops/talops/internal/secrets"
	"github.com/talops/talops/internal/talos"
	"github.com/talops/talops/internal/testlab"
)

// k8sLab renders the lab of three control planes and two workers on Kubernetes from and
// on v1.36.4, as it ran Talos v1.13.9, plans the move and returns the upgrade and its nodes.
func k8sLab(t *testing.T, from string, edit func(desired map[string][]byte)) (*plan.KubernetesUpgrade, []rollout.K8sNode) {
	t.Helper()

	return k8sLabOn(t, "v1.13.9", from, edit)
}

// k8sLabOn is k8sLab with every node on Talos release talosVersion.
func k8sLabOn(t *testing.T, talosVersion, from string, edit func(desired map[string][]byte)) (*plan.KubernetesUpgrade, []rollout.K8sNode) {
	t.Helper()

	current, desired := testlab.Scaled(t, 5), testlab.Scaled(t, 5)
	testlab.SetVersions(t, current, "", from)
	testlab.SetVersions(t, desired, "", "v1.36.4")

	for _, f := range []map[string][]byte{current, desired} {
		testlab.SetVersions(t, f, talosVersion, "")

		// The config follows the release (from 1.14 the images are documents of their
		// own), unless the lab pins its format.
		if strings.Contains(string(f["talops.yaml"]), testlab.Pin) {
			testlab.Unpin(t, f)
		}
	}

	if edit != nil {
		edit(desired)
	}

	cur, curBytes, b := renderLab(t, current)
	des, desBytes, _ := renderLab(t, desired)

	p, err := plan.Compute(context.Background(), "homelab", cur, des, mask.New(b.Values()...))
	if err != nil {
		t.Fatal(err)
	}

	if p.Kubernetes == nil {
		t.Fatal("no Kubernetes upgrade planned")
	}

	var nodes []rollout.K8sNode

	for _, n := range p.Nodes {
		nodes = append(nodes, rollout.K8sNode{Name: n.Name, Role: n.Role, Address: n.Name, Current: curBytes[n.Name], Desired: desBytes[n.Name], Final: n.Action == plan.Update})
	}

	return p.Kubernetes, nodes
}

func renderLab(t *testing.T, files map[string][]byte) (plan.State, map[string][]byte, *secrets.Bundle) {
	t.Helper()

	c := testlab.Load(t, files)

	b, err := (&secrets.Loader{Getenv: testlab.NoEnv, Now: time.Now}).Load(c)
	if err != nil {
		t.Fatal(err)
	}

	ids, err := render.SchematicIDs(c)
	if err != nil {
		t.Fatal(err)
	}

	s := plan.State{TalosVersion: c.Spec.TalosVersion, SecretsFingerprint: "same"}
	data := map[string][]byte{}

	for _, r := range render.All(context.Background(), c, b, render.Options{Installer: render.FactoryInstaller(ids)}) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}

		s.Nodes = append(s.Nodes, plan.NodeState{Name: r.Name, Role: r.Machine.Node.Role, Schematic: r.Machine.Node.Schematic, Installer: r.Machine.Installer, Config: r.Machine.Config})

		if data[r.Name], err = r.Machine.Bytes(); err != nil {
			t.Fatal(err)
		}
	}

	return s, data, b
}

// k8sCluster is a fake cluster for a Kubernetes upgrade: each node runs the images of the
// config it last took (its static pods at once, its kubelet as the Node reports it), and
// every applied config is recorded with the images of every component then configured.
type k8sCluster struct {
	mu sync.Mutex
	// running is each node's configured image per component.
	running map[string]map[string]string
	roles   map[string]cluster.Role
	applied []appliedConfig
	pulls   []string
	// removed is what RemovedAPIsInUse answers; staleKubelet names a Node that keeps its
	// old kubelet version; synced counts the manifest syncs.
	removed      []string
	staleKubelet string
	synced       int
	// asked are the Node names whose kubelet version was asked for.
	asked []string
}

type appliedConfig struct {
	node   string
	config []byte
	// cluster is every node's component images right after this apply.
	cluster map[string]map[string]string
}

func newK8sCluster(t *testing.T, nodes []rollout.K8sNode) *k8sCluster {
	t.Helper()

	c := &k8sCluster{running: map[string]map[string]string{}, roles: map[string]cluster.Role{}}

	for _, n := range nodes {
		c.running[n.Name] = images(t, n.Current)
		c.roles[n.Name] = n.Role
	}

	return c
}

func images(t testing.TB, config []byte) map[string]string {
	t.Helper()

	cfg, err := configloader.NewFromBytes(config)
	if err != nil {
		t.Fatal(err)
	}

	out := map[string]string{}
	for _, comp := range plan.K8sComponents {
		out[comp] = plan.ComponentImage(cfg, comp)
	}

	return out
}

func (c *k8sCluster) Dial(_ context.Context, address string) (talos.Node, error) {
	return &k8sFakeNode{c: c, name: address}, nil
}

func (c *k8sCluster) DialMaintenance(context.Context, string) (talos.Maintenance, error) {
	return nil, errors.New("no node is in maintenance mode")
}

func (c *k8sCluster) KubeletVersion(_ context.Context, node string) (string, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	c.asked = append(c.asked, node)

	if node == c.staleKubelet {
		return "v1.35.2", true, nil
	}

	imgs, ok := c.running[strings.TrimSuffix(node, ".lan")]
	if !ok {
		return "", false, fmt.Errorf("nodes %q not found", node)
	}

	return plan.ImageVersion(imgs[plan.K8sKubelet]), true, nil
}

func (c *k8sCluster) RemovedAPIsInUse(context.Context, string, string) ([]string, error) {
	return c.removed, nil
}

func (c *k8sCluster) SyncManifests(_ context.Context, _ bool, log func(string)) error {
	c.mu.Lock()
	c.synced++
	c.mu.Unlock()

	log("DaemonSet kube-system/kube-proxy: updated")

	return nil
}

type k8sFakeNode struct {
	talos.Node // any call not overridden here is a test failure (nil interface panics)

	c    *k8sCluster
	name string
}

func (n *k8sFakeNode) Close() error { return nil }

func (n *k8sFakeNode) Apply(_ context.Context, config []byte, mode talos.Mode, dryRun bool) (talos.Applied, error) {
	if mode != talos.ModeNoReboot {
		return talos.Applied{}, fmt.Errorf("mode %s: a Kubernetes upgrade step never reboots", mode)
	}

	if dryRun {
		return talos.Applied{Mode: "NO_REBOOT"}, nil
	}

	cfg, err := configloader.NewFromBytes(config)
	if err != nil {
		return talos.Applied{}, err
	}

	n.c.mu.Lock()
	defer n.c.mu.Unlock()

	for _, comp := range plan.K8sComponents {
		n.c.running[n.name][comp] = plan.ComponentImage(cfg, comp)
	}

	snapshot := map[string]map[string]string{}
	for name, imgs := range n.c.running {
		snapshot[name] = map[string]string{}
		for k, v := range imgs {
			snapshot[name][k] = v
		}
	}

	n.c.applied = append(n.c.applied, appliedConfig{node: n.name, config: config, cluster: snapshot})

	return talos.Applied{Mode: "NO_REBOOT"}, nil
}

func (n *k8sFakeNode) PullImage(_ context.Context, image string) error {
	n.c.mu.Lock()
	defer n.c.mu.Unlock()

	n.c.pulls = append(n.c.pulls, n.name+" system "+image)

	return nil
}

func (n *k8sFakeNode) PullKubeletImage(_ context.Context, image string) error {
	n.c.mu.Lock()
	defer n.c.mu.Unlock()

	n.c.pulls = append(n.c.pulls, n.name+" cri-system "+image)

	return nil
}

func (n *k8sFakeNode) PullCRIImage(_ context.Context, image string) error {
	n.c.mu.Lock()
	defer n.c.mu.Unlock()

	n.c.pulls = append(n.c.pulls, n.name+" cri "+image)

	return nil
}

func (n *k8sFakeNode) StaticPods(context.Context) ([]talos.StaticPod, error) {
	n.c.mu.Lock()
	defer n.c.mu.Unlock()

	var out []talos.StaticPod
	for _, comp := range []string{plan.K8sAPIServer, plan.K8sControllerManager, plan.K8sScheduler} {
		out = append(out, talos.StaticPod{ID: "kube-system/" + comp + "-" + n.name, Images: []string{n.c.running[n.name][comp]}, Ready: true})
	}

	return out, nil
}

var k8sOptions = rollout.K8sOptions{CallTimeout: time.Second, WaitTimeout: 200 * time.Millisecond, Interval: 5 * time.Millisecond}

// changedComponents are the components whose image differs between two snapshots of a node.
func changedComponents(before, after map[string]string) []string {
	var out []string

	for _, comp := range plan.K8sComponents {
		if before[comp] != after[comp] {
			out = append(out, comp)
		}
	}

	return out
}

func TestK8sUpgrade_NoComponentAheadOfAnyAPIServer(t *testing.T) {
	u, nodes := k8sLab(t, "v1.35.2", nil)
	c := newK8sCluster(t, nodes)

	if _, err := rollout.UpgradeKubernetes(context.Background(), c, c, u, nodes, k8sOptions); err != nil {
		t.Fatal(err)
	}

	if len(c.applied) == 0 {
		t.Fatal("no config applied")
	}

	for i, a := range c.applied {
		var oldestAPIServer *version.Version

		for name, imgs := range a.cluster {
			if c.roles[name] != "controlplane" {
				continue
			}

			v := version.Must(version.NewSemver(plan.ImageVersion(imgs[plan.K8sAPIServer])))
			if oldestAPIServer == nil || v.LessThan(oldestAPIServer) {
				oldestAPIServer = v
			}
		}

		for name, imgs := range a.cluster {
			for _, comp := range []string{plan.K8sControllerManager, plan.K8sScheduler, plan.K8sProxy, plan.K8sKubelet} {
				if !plan.RunsOn(comp, c.roles[name]) {
					continue
				}

				if v := version.Must(version.NewSemver(plan.ImageVersion(imgs[comp]))); v.GreaterThan(oldestAPIServer) {
					t.Errorf("after apply %d (%s): %s on %s runs %s, ahead of a kube-apiserver on %s", i+1, a.node, comp, name, v, oldestAPIServer)
				}
			}
		}
	}
}

func TestK8sUpgrade_EachStepMovesOneComponentInOrder(t *testing.T) {
	u, nodes := k8sLab(t, "v1.35.2", nil)
	c := newK8sCluster(t, nodes)

	start := map[string]map[string]string{}
	for _, n := range nodes {
		start[n.Name] = images(t, n.Current)
	}

	res, err := rollout.UpgradeKubernetes(context.Background(), c, c, u, nodes, k8sOptions)
	if err != nil {
		t.Fatal(err)
	}

	var got []string

	before := start
	for _, a := range c.applied {
		got = append(got, a.node+" "+strings.Join(changedComponents(before[a.node], a.cluster[a.node]), "+"))
		before = a.cluster
	}

	want := []string{
		"node-00 kube-apiserver", "node-01 kube-apiserver", "node-02 kube-apiserver",
		"node-00 kube-controller-manager", "node-01 kube-controller-manager", "node-02 kube-controller-manager",
		"node-00 kube-scheduler", "node-01 kube-scheduler", "node-02 kube-scheduler",
		"node-00 kube-proxy", "node-01 kube-proxy", "node-02 kube-proxy",
		"node-00 kubelet", "node-01 kubelet", "node-02 kubelet", "node-03 kubelet", "node-04 kubelet",
	}

	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("applied\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	if c.synced != 1 {
		t.Errorf("manifests synced %d times, want once after the kubelets", c.synced)
	}

	if strings.Join(res.Final, ",") != "node-00,node-01,node-02,node-03,node-04" {
		t.Errorf("final nodes %q", res.Final)
	}
}

func TestK8sUpgrade_LastStepIsTheRenderedConfigByteForByte(t *testing.T) {
	// Talos 1.13 holds the images in the v1alpha1 document, 1.14 in documents of their own.
	for _, release := range []string{"v1.13.9", "v1.14.1"} {
		t.Run(release, func(t *testing.T) { lastStepIsRendered(t, release) })
	}
}

func lastStepIsRendered(t *testing.T, release string) {
	u, nodes := k8sLabOn(t, release, "v1.35.2", nil)

	if multidoc := strings.Contains(string(nodes[0].Desired), "kind: KubeAPIServerConfig"); multidoc != (release == "v1.14.1") {
		t.Fatalf("Talos %s renders the kube-apiserver in its own document: %v", release, multidoc)
	}

	// Without Final the last step is the desired config only because it says the same.
	for i := range nodes {
		nodes[i].Final = false
	}

	c := newK8sCluster(t, nodes)

	if _, err := rollout.UpgradeKubernetes(context.Background(), c, c, u, nodes, k8sOptions); err != nil {
		t.Fatal(err)
	}

	last := map[string][]byte{}
	for _, a := range c.applied {
		last[a.node] = a.config
	}

	for _, n := range nodes {
		if string(last[n.Name]) != string(n.Desired) {
			t.Errorf("%s: the last config applied is not the rendered one", n.Name)
		}
	}

	// Each step before it moved one image of the running config and nothing else.
	first := c.applied[0]
	if first.node != "node-00" || strings.Join(changedComponents(images(t, nodes[0].Current), images(t, first.config)), "+") != plan.K8sAPIServer {
		t.Errorf("the first step on %s moved more than kube-apiserver", first.node)
	}
}

func TestK8sUpgrade_ChangeThatNeedsARebootIsLeftToTheRollout(t *testing.T) {
	u, nodes := k8sLab(t, "v1.35.2", func(desired map[string][]byte) {
		desired["nodes/node-03.yaml"] = append([]byte("machine:\n  env:\n    HTTP_PROXY: http://proxy:3128\n---\n"), desired["nodes/node-03.yaml"]...)
	})
	c := newK8sCluster(t, nodes)

	res, err := rollout.UpgradeKubernetes(context.Background(), c, c, u, nodes, k8sOptions)
	if err != nil {
		t.Fatal(err)
	}

	for _, a := range c.applied {
		if a.node == "node-03" && strings.Contains(string(a.config), "HTTP_PROXY") {
			t.Error("the Kubernetes upgrade sent node-03 a change that needs a reboot")
		}
	}

	if strings.Contains(strings.Join(res.Final, ","), "node-03") {
		t.Errorf("node-03 is reported in its desired state: %q", res.Final)
	}
}

func TestK8sUpgrade_RemovedAPIInUseRefusesBeforeAnyChange(t *testing.T) {
	u, nodes := k8sLab(t, "v1.35.2", nil)
	c := newK8sCluster(t, nodes)
	c.removed = []string{"flowcontrol.apiserver.k8s.io/v1beta3 flowschemas (2 objects)"}

	_, err := rollout.UpgradeKubernetes(context.Background(), c, c, u, nodes, k8sOptions)

	var refused *rollout.K8sRefusedError
	if !errors.As(err, &refused) || !strings.Contains(refused.Reasons[0], "flowschemas") {
		t.Fatalf("err = %v, want a refusal naming the removed API", err)
	}

	if len(c.applied) > 0 || len(c.pulls) > 0 {
		t.Errorf("a refused upgrade touched nodes: %d applies, %d pulls", len(c.applied), len(c.pulls))
	}
}

func TestK8sUpgrade_PlannedRefusalTouchesNoNode(t *testing.T) {
	u, nodes := k8sLab(t, "v1.35.2", nil)
	u.Refused = []string{"node node-04 runs Talos v1.11.5, which does not support Kubernetes v1.36.4"}
	c := newK8sCluster(t, nodes)

	_, err := rollout.UpgradeKubernetes(context.Background(), c, c, u, nodes, k8sOptions)

	var refused *rollout.K8sRefusedError
	if !errors.As(err, &refused) || len(c.applied) > 0 {
		t.Fatalf("err = %v after %d applies, want a refusal before any", err, len(c.applied))
	}
}

func TestK8sUpgrade_KubeletThatDoesNotReportStopsBeforeTheNextNode(t *testing.T) {
	u, nodes := k8sLab(t, "v1.35.2", nil)
	c := newK8sCluster(t, nodes)
	c.staleKubelet = "node-03"

	_, err := rollout.UpgradeKubernetes(context.Background(), c, c, u, nodes, k8sOptions)

	var step *rollout.K8sStepError
	if !errors.As(err, &step) || step.Component != plan.K8sKubelet || step.Node != "node-03" {
		t.Fatalf("err = %v, want the kubelet step on node-03", err)
	}

	if got := c.applied[len(c.applied)-1].node; got != "node-03" {
		t.Errorf("last apply on %s, want node-03 (node-04 untouched)", got)
	}

	if c.synced != 0 {
		t.Error("manifests synced after a failed kubelet step")
	}
}

func TestK8sUpgrade_PrePullsEveryImageWhereItRuns(t *testing.T) {
	u, nodes := k8sLab(t, "v1.35.2", nil)
	c := newK8sCluster(t, nodes)

	if _, err := rollout.UpgradeKubernetes(context.Background(), c, c, u, nodes, k8sOptions); err != nil {
		t.Fatal(err)
	}

	pulls := strings.Join(c.pulls, "\n")

	for _, want := range []string{
		"node-00 cri registry.k8s.io/kube-apiserver:v1.36.4",
		"node-02 cri registry.k8s.io/kube-scheduler:v1.36.4",
		"node-01 cri registry.k8s.io/kube-proxy:v1.36.4",
		"node-04 cri-system ghcr.io/siderolabs/kubelet:v1.36.4",
	} {
		if !strings.Contains(pulls, want) {
			t.Errorf("pulls lack %q:\n%s", want, pulls)
		}
	}

	if strings.Contains(pulls, "node-03 cri ") {
		t.Errorf("a worker pulled a control-plane image:\n%s", pulls)
	}

	// Talos' own containerd is a store the kubelet service never reads.
	if strings.Contains(pulls, " system ") {
		t.Errorf("a kubelet image went to Talos' system containerd:\n%s", pulls)
	}
}

func TestK8sUpgrade_DryRunChangesNothing(t *testing.T) {
	u, nodes := k8sLab(t, "v1.35.2", nil)
	c := newK8sCluster(t, nodes)

	o := k8sOptions
	o.DryRun = true

	if _, err := rollout.UpgradeKubernetes(context.Background(), c, c, u, nodes, o); err != nil {
		t.Fatal(err)
	}

	if len(c.applied) > 0 || len(c.pulls) > 0 {
		t.Errorf("a dry run applied %d configs and pulled %d images", len(c.applied), len(c.pulls))
	}
}

func (n *k8sFakeNode) BootstrapManifests(context.Context) ([]*unstructured.Unstructured, error) {
	return nil, nil
}

func TestK8sUpgrade_KubeletIsAwaitedUnderItsKubernetesNodeName(t *testing.T) {
	u, nodes := k8sLab(t, "v1.35.2", nil)

	for i := range nodes {
		nodes[i].KubeNode = nodes[i].Name + ".lan"
	}

	c := newK8sCluster(t, nodes)

	if _, err := rollout.UpgradeKubernetes(context.Background(), c, c, u, nodes, k8sOptions); err != nil {
		t.Fatal(err)
	}

	for _, name := range c.asked {
		if !strings.HasSuffix(name, ".lan") {
			t.Errorf("asked for the Node %q, not its Kubernetes name", name)
		}
	}

	if len(c.asked) < len(nodes) {
		t.Errorf("asked %q", c.asked)
	}
}
