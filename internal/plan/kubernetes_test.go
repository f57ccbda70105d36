package plan_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/mask"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/testlab"
)

// k8sBump is a lab of three control planes and two workers whose kubernetesVersion moves
// from to to.
func k8sBump(t *testing.T, from, to string) (current, desired cluster.MapFiles) {
	t.Helper()

	current, desired = testlab.Scaled(t, 5), testlab.Scaled(t, 5)
	testlab.SetVersions(t, current, "", from)
	testlab.SetVersions(t, desired, "", to)

	return current, desired
}

func computeBump(t *testing.T, from, to string) *plan.Plan {
	t.Helper()

	current, desired := k8sBump(t, from, to)

	return compute(t, current, desired)
}

func TestKubernetesUpgrade_StepsMoveEachComponentAcrossControlPlanesInOrder(t *testing.T) {
	p := computeBump(t, "v1.35.2", "v1.36.4")

	u := p.Kubernetes
	if u == nil {
		t.Fatal("no Kubernetes upgrade in the plan")
	}

	if u.From != "v1.35.2" || u.To != "v1.36.4" || len(u.Refused) > 0 {
		t.Fatalf("upgrade %s → %s, refused %q", u.From, u.To, u.Refused)
	}

	cps := []string{"node-00", "node-01", "node-02"}
	all := []string{"node-00", "node-01", "node-02", "node-03", "node-04"}

	want := []plan.KubernetesStep{
		{Component: plan.K8sPreflight, Nodes: all},
		{Component: plan.K8sPrePull, Nodes: all, Images: []string{
			"registry.k8s.io/kube-apiserver:v1.36.4", "registry.k8s.io/kube-controller-manager:v1.36.4",
			"registry.k8s.io/kube-scheduler:v1.36.4", "registry.k8s.io/kube-proxy:v1.36.4", "ghcr.io/siderolabs/kubelet:v1.36.4",
		}},
		{Component: plan.K8sAPIServer, Nodes: cps, Image: "registry.k8s.io/kube-apiserver:v1.36.4"},
		{Component: plan.K8sControllerManager, Nodes: cps, Image: "registry.k8s.io/kube-controller-manager:v1.36.4"},
		{Component: plan.K8sScheduler, Nodes: cps, Image: "registry.k8s.io/kube-scheduler:v1.36.4"},
		{Component: plan.K8sProxy, Nodes: cps, Image: "registry.k8s.io/kube-proxy:v1.36.4"},
		{Component: plan.K8sKubelet, Nodes: all, Image: "ghcr.io/siderolabs/kubelet:v1.36.4"},
		{Component: plan.K8sManifests, Nodes: []string{"node-00"}},
	}

	got, _ := json.MarshalIndent(u.Steps, "", " ")
	exp, _ := json.MarshalIndent(want, "", " ")

	if string(got) != string(exp) {
		t.Errorf("steps\n got %s\nwant %s", got, exp)
	}

	for _, n := range p.Nodes {
		if r := strings.Join(n.Reasons, "; "); !strings.Contains(r, "Kubernetes v1.35.2 → v1.36.4: talops moves it component by component") || strings.Contains(r, "talosctl upgrade-k8s") {
			t.Errorf("%s reasons %q", n.Name, r)
		}

		if n.Action != plan.Update {
			t.Errorf("%s: %s, want update (the images move live)", n.Name, n.Action)
		}
	}
}

func TestKubernetesUpgrade_NoSectionWhenNoImageMoves(t *testing.T) {
	p := compute(t, testlab.Files(t), testlab.Changed(t))

	if p.Kubernetes != nil {
		t.Errorf("a plan without a Kubernetes move has a Kubernetes upgrade: %+v", p.Kubernetes)
	}

	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}

	if strings.Contains(string(data), `"kubernetes"`) {
		t.Errorf("the JSON of a plan without a Kubernetes move names one: %s", data)
	}
}

func TestKubernetesUpgrade_DisabledKubeProxyTakesNoStep(t *testing.T) {
	current, desired := k8sBump(t, "v1.35.2", "v1.36.4")

	for _, f := range []cluster.MapFiles{current, desired} {
		f["patches/controlplane.yaml"] = append(f["patches/controlplane.yaml"], []byte("\n---\ncluster:\n  proxy:\n    disabled: true\n")...)
	}

	p := compute(t, current, desired)

	if _, ok := p.Kubernetes.Step(plan.K8sProxy); ok {
		t.Errorf("kube-proxy is disabled but the upgrade moves it: %+v", p.Kubernetes.Steps)
	}

	if _, ok := p.Kubernetes.Step(plan.K8sAPIServer); !ok {
		t.Errorf("no kube-apiserver step: %+v", p.Kubernetes.Steps)
	}
}

func TestKubernetesUpgrade_RefusesSkippingAMinor(t *testing.T) {
	p := computeBump(t, "v1.34.3", "v1.36.4")

	if got := strings.Join(p.Kubernetes.Refused, "\n"); !strings.Contains(got, "Kubernetes v1.34.3 → v1.36.4 crosses 2 minor releases: Kubernetes upgrades one minor at a time") {
		t.Errorf("refused %q", got)
	}
}

func TestKubernetesUpgrade_RefusesATargetANodesTalosDoesNotSupport(t *testing.T) {
	cf, df := k8sBump(t, "v1.35.2", "v1.36.4")

	current, b := state(t, cf)
	desired, _ := state(t, df)

	// As read from the nodes: one worker still runs Talos 1.11, whose newest Kubernetes is 1.34.
	current.Nodes[4].TalosVersion = "v1.11.5"
	current.Nodes[4].Installer = desired.Nodes[4].Installer

	p, err := plan.Compute(context.Background(), "homelab", current, desired, mask.New(b.Values()...))
	if err != nil {
		t.Fatal(err)
	}

	refused := p.Kubernetes.Refused
	if len(refused) != 1 || !strings.HasPrefix(refused[0], "node node-04 runs Talos v1.11.5, which does not support Kubernetes v1.36.4") {
		t.Errorf("refused %q", refused)
	}
}

func TestKubernetesUpgrade_RefusesATalosUpgradeInTheSameApply(t *testing.T) {
	current, desired := k8sBump(t, "v1.35.2", "v1.36.4")
	testlab.SetVersions(t, current, "v1.13.8", "")

	p := compute(t, current, desired)

	if got := strings.Join(p.Kubernetes.Refused, "\n"); strings.Count(got, "upgrade Talos and Kubernetes in separate applies") != 5 {
		t.Errorf("refused %q", got)
	}
}

func TestKubernetesUpgrade_HashCoversTheSteps(t *testing.T) {
	current, desired := k8sBump(t, "v1.35.2", "v1.36.4")
	a := compute(t, current, desired)
	b := computeBump(t, "v1.35.2", "v1.36.4")
	des, _ := state(t, desired)

	if a.Hash != b.Hash {
		t.Fatalf("the same plan hashes differently: %s %s", a.Hash, b.Hash)
	}

	// The same nodes and diffs with another upgrade: only the section differs.
	c := *a
	k := *a.Kubernetes
	k.Steps = slices.Clone(k.Steps[:len(k.Steps)-1])
	c.Kubernetes = &k

	data, _ := json.Marshal(c)

	var again plan.Plan
	if err := json.Unmarshal(data, &again); err != nil {
		t.Fatal(err)
	}

	if plan.HashOf(a, des) != a.Hash {
		t.Fatal("HashOf does not compute the plan's hash")
	}

	if plan.HashOf(&again, des) == a.Hash {
		t.Error("a plan without the manifests step hashes like the whole upgrade")
	}
}

func TestImageVersion_ReadsTheTag(t *testing.T) {
	for image, want := range map[string]string{
		"registry.k8s.io/kube-apiserver:v1.36.4":                 "v1.36.4",
		"ghcr.io/siderolabs/kubelet:v1.36.4@sha256:0123456789ab": "v1.36.4",
		"localhost:5000/kube-apiserver":                          "",
		"kube-apiserver":                                         "",
	} {
		if got := plan.ImageVersion(image); got != want {
			t.Errorf("ImageVersion(%q) = %q, want %q", image, got, want)
		}
	}
}
