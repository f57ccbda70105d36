package rollout_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/rollout"
	"github.com/talops/talops/internal/talos"
	"github.com/talops/talops/internal/talos/talostest"
)

// nodeKubelets is the Kubernetes side of fake Talos nodes: each Node reports the kubelet
// of the config its node runs.
type nodeKubelets struct {
	servers map[string]*talostest.Server
	current map[string][]byte
	synced  int
}

func (k *nodeKubelets) KubeletVersion(_ context.Context, node string) (string, bool, error) {
	config := k.current[node]
	if applied := k.servers[node].Applied(); len(applied) > 0 {
		config = applied[len(applied)-1].Config
	}

	return plan.ImageVersion(desiredKubelet(config)), true, nil
}

func desiredKubelet(config []byte) string {
	for _, line := range strings.Split(string(config), "\n") {
		if strings.Contains(line, "ghcr.io/siderolabs/kubelet:") {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "image:"))
		}
	}

	return ""
}

func (k *nodeKubelets) RemovedAPIsInUse(context.Context, string, string) ([]string, error) {
	return nil, nil
}

func (k *nodeKubelets) SyncManifests(context.Context, bool, func(string)) error {
	k.synced++

	return nil
}

// Over fake Talos nodes speaking the real API: the static pods are read over COSI, the
// images pulled with the ImageService, every config taken without a reboot, and every node
// ends on its rendered config.
func TestK8sUpgrade_OverTheTalosAPI(t *testing.T) {
	u, nodes := k8sLab(t, "v1.35.2", nil)

	ca := talostest.NewCA(t)
	servers := map[string]*talostest.Server{}
	endpoints := map[string]string{}
	current := map[string][]byte{}

	for _, n := range nodes {
		servers[n.Name] = talostest.Start(t, ca, talostest.Node{Name: n.Name, Config: n.Current, Version: "v1.13.9"})
		endpoints[n.Address] = servers[n.Name].Addr
		current[n.Name] = n.Current
	}

	d, err := talos.NewDialer(talos.Options{
		Talosconfig: talostest.Talosconfig(t, "fake", ca.PEM, ca.ClientCert(t)),
		Endpoint:    func(address string) string { return endpoints[address] },
	})
	if err != nil {
		t.Fatal(err)
	}

	k := &nodeKubelets{servers: servers, current: current}

	before, err := servers["node-01"].StaticPodImages(context.Background())
	if err != nil || before["kube-apiserver"] != "registry.k8s.io/kube-apiserver:v1.35.2" {
		t.Fatalf("static pods before: %v, %v", before, err)
	}

	if _, err := rollout.UpgradeKubernetes(context.Background(), d, k, u, nodes, k8sOptions); err != nil {
		t.Fatal(err)
	}

	for _, n := range nodes {
		s := servers[n.Name]

		applied := s.Applied()
		if len(applied) == 0 || !bytes.Equal(applied[len(applied)-1].Config, n.Desired) {
			t.Errorf("%s does not end on its rendered config", n.Name)
		}

		for _, a := range applied {
			if a.Mode != "NO_REBOOT" {
				t.Errorf("%s took a config in mode %s", n.Name, a.Mode)
			}
		}

		if s.Boots() != 0 {
			t.Errorf("%s booted %d times", n.Name, s.Boots())
		}

		if !strings.Contains(strings.Join(s.Pulls(), ","), "ghcr.io/siderolabs/kubelet:v1.36.4") {
			t.Errorf("%s pulled %q", n.Name, s.Pulls())
		}
	}

	after, err := servers["node-01"].StaticPodImages(context.Background())
	if err != nil || after["kube-scheduler"] != "registry.k8s.io/kube-scheduler:v1.36.4" {
		t.Errorf("static pods after: %v, %v", after, err)
	}

	if k.synced != 1 {
		t.Errorf("manifests synced %d times", k.synced)
	}
}
