package app_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/siderolabs/talos/pkg/machinery/config/configloader"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/talos/talostest"
	"github.com/talops/talops/internal/testlab"
)

// upgradeAPI is the Kubernetes side of a Kubernetes upgrade over the lab's fake nodes: each
// Node reports the kubelet of the config its node runs; the manifests synced are recorded.
type upgradeAPI struct {
	mu      sync.Mutex
	servers map[string]*talostest.Server
	removed []string
	synced  [][]*unstructured.Unstructured
	ssa     []bool
}

func (a *upgradeAPI) KubeletVersion(_ context.Context, node string) (string, bool, error) {
	s, ok := a.servers[node]
	if !ok {
		return "", false, errors.New("no Node " + node)
	}

	applied := s.Applied()
	if len(applied) == 0 {
		return "", false, errors.New("no config yet")
	}

	cfg, err := configloader.NewFromBytes(applied[len(applied)-1].Config)
	if err != nil {
		return "", false, err
	}

	return plan.ImageVersion(plan.ComponentImage(cfg, plan.K8sKubelet)), true, nil
}

func (a *upgradeAPI) RemovedAPIsInUse(context.Context, string, string) ([]string, error) {
	return a.removed, nil
}

func (a *upgradeAPI) SyncManifests(_ context.Context, objects []*unstructured.Unstructured, ssa, _ bool, _ func(string)) error {
	a.mu.Lock()
	defer a.mu.Unlock()

	a.synced = append(a.synced, objects)
	a.ssa = append(a.ssa, ssa)

	return nil
}

// upgradeLab is the lab of three control planes and two workers created on Kubernetes
// v1.35.2, with talops.yaml then bumped to v1.36.4.
func upgradeLab(t *testing.T) (*newClusterLab, *upgradeAPI) {
	t.Helper()

	l := startNewCluster(t)
	testlab.SetVersions(t, l.files, "", "v1.35.2")
	l.create(t)
	testlab.Edit(t, l.files, "talops.yaml", "kubernetesVersion: v1.35.2", "kubernetesVersion: v1.36.4")

	api := &upgradeAPI{servers: l.servers}
	l.d.KubernetesAPI = func(ctx context.Context, kubeconfig func(context.Context) ([]byte, error)) (app.KubernetesAPI, error) {
		if _, err := kubeconfig(ctx); err != nil {
			return nil, err
		}

		return api, nil
	}

	return l, api
}

func TestApply_KubernetesBumpOnThreeControlPlanesMovesComponentByComponentThenPlansNoop(t *testing.T) {
	t.Parallel()

	l, api := upgradeLab(t)

	rep, err := l.apply(t, app.ApplyOptions{})
	if err != nil {
		t.Fatalf("apply of the Kubernetes bump: %v", err)
	}

	// The report says what happened to each node, not "already in the desired state".
	for _, n := range rep.Nodes {
		if n.Outcome != "applied" || !strings.HasPrefix(n.Detail, "Kubernetes v1.35.2 → v1.36.4, component by component") || n.Rebooted {
			t.Errorf("%s: %s (%s), want applied by the Kubernetes upgrade, without a reboot", n.Name, n.Outcome, n.Detail)
		}
	}

	// Every config each node took after its first, in the order the journal saw them.
	var order []string

	seen := map[string]int{}

	for _, e := range l.journal.Entries() {
		name, call, _ := strings.Cut(e, " ")
		if !strings.HasPrefix(call, "ApplyConfiguration") {
			continue
		}

		seen[name]++
		if seen[name] == 1 {
			continue // the first config, from the create
		}

		if call != "ApplyConfiguration NO_REBOOT" {
			t.Errorf("%s took a config with %s", name, call)
		}

		order = append(order, name)
	}

	want := []string{
		"k8s-master", "k8s-node2", "k8s-node3", // kube-apiserver
		"k8s-master", "k8s-node2", "k8s-node3", // kube-controller-manager
		"k8s-master", "k8s-node2", "k8s-node3", // kube-scheduler
		"k8s-master", "k8s-node2", "k8s-node3", // kube-proxy
		"k8s-master", "k8s-node2", "k8s-node3", "k8s-node1", "k8s-node4", // kubelet
	}
	if !slices.Equal(order, want) {
		t.Errorf("configs taken\n got %q\nwant %q", order, want)
	}

	for name, s := range l.servers {
		if s.Reboots() != 0 {
			t.Errorf("%s rebooted %d times", name, s.Reboots())
		}
	}

	images, err := l.servers["k8s-node3"].StaticPodImages(context.Background())
	if err != nil || images["kube-apiserver"] != "registry.k8s.io/kube-apiserver:v1.36.4" {
		t.Errorf("k8s-node3 static pods: %v, %v", images, err)
	}

	if len(api.synced) != 1 || !api.ssa[0] || len(api.synced[0]) != 1 {
		t.Fatalf("manifests synced %d times (ssa %v)", len(api.synced), api.ssa)
	}

	ds := api.synced[0][0]
	if containers, _, _ := unstructured.NestedSlice(ds.Object, "spec", "template", "spec", "containers"); len(containers) != 1 || containers[0].(map[string]any)["image"] != "registry.k8s.io/kube-proxy:v1.36.4" {
		t.Errorf("the kube-proxy manifest synced: %v", ds.Object)
	}

	live, err := app.Plan(context.Background(), l.d, app.PlanOptions{Dir: "lab", Live: true})
	if err != nil {
		t.Fatal(err)
	}

	if live.Plan.HasChanges() || live.Plan.Kubernetes != nil {
		t.Errorf("plan --live after the upgrade: %s, Kubernetes %+v", live.Plan.Summary(), live.Plan.Kubernetes)
	}
}

func TestApply_KubernetesBumpWithARemovedAPIInUseIsRefusedBeforeAnyChange(t *testing.T) {
	t.Parallel()

	l, api := upgradeLab(t)
	api.removed = []string{"workloads.v1alpha2.scheduling.k8s.io: 1 object"}

	before := len(l.journal.Entries())

	_, err := l.apply(t, app.ApplyOptions{})

	var refused *app.RefusedError
	if !errors.As(err, &refused) || !strings.Contains(strings.Join(refused.Reasons, "\n"), "workloads.v1alpha2.scheduling.k8s.io") {
		t.Fatalf("err = %v, want a refusal naming the removed API", err)
	}

	if after := l.journal.Entries()[before:]; len(after) > 0 {
		t.Errorf("a refused upgrade changed nodes: %q", after)
	}
}
