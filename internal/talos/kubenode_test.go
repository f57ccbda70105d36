package talos_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/talops/talops/internal/talos"
	"github.com/talops/talops/internal/talos/talostest"
)

func TestReadAll_TheNodeSaysTheNameOfItsKubernetesNode(t *testing.T) {
	t.Parallel()

	named := workerConfig + "---\napiVersion: v1alpha1\nkind: HostnameConfig\nauto: \"off\"\nhostname: worker-7\n"

	tests := []struct {
		name string
		node talostest.Node
		want string
	}{
		{"ThePickedHostnameNamesItWhenTheConfigSetsNone", talostest.Node{Name: "lab-worker1", Hostname: "talos-4xk-91q", Config: []byte(workerConfig)}, "talos-4xk-91q"},
		{"TheConfigsHostnameNamesIt", talostest.Node{Name: "lab-worker1", Hostname: "talos-4xk-91q", Config: []byte(named)}, "worker-7"},
		{"WithoutANodenameTheHostnameStatusNamesIt", talostest.Node{Name: "lab-worker1", Hostname: "talos-4xk-91q", Config: []byte(workerConfig), NoNodename: true}, "talos-4xk-91q"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			ca := talostest.NewCA(t)
			tt.node.Version = "v1.14.1"
			s := talostest.Start(t, ca, tt.node)
			d := lab(t, ca, ca.ClientCert(t), map[string]string{"10.0.0.1": s.Addr})

			res := talos.ReadAll(context.Background(), d, []talos.Target{{Name: "lab-worker1", Address: "10.0.0.1"}}, 5*time.Second)
			if res[0].Err != nil || res[0].Value.KubeNode != tt.want {
				t.Errorf("KubeNode %q (%v), want %q", res[0].Value.KubeNode, res[0].Err, tt.want)
			}
		})
	}
}

// Each pre-pull goes to the containerd that runs the image: the control plane's into the
// pods' namespace, the kubelet into the pods' containerd under Talos' system namespace
// (where the kubelet service looks), the installer into Talos' own containerd.
func TestPull_EachImageGoesToTheContainerdThatRunsIt(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	node, s := dialOne(t, talostest.Node{Name: "a", Config: []byte(controlPlaneConfig), Version: "v1.14.1"})

	kn, ok := node.(talos.KubernetesNode)
	if !ok {
		t.Fatal("the node has no Kubernetes side")
	}

	if err := kn.PullCRIImage(ctx, "registry.k8s.io/kube-apiserver:v1.37.1"); err != nil {
		t.Fatal(err)
	}

	if err := kn.PullKubeletImage(ctx, "ghcr.io/siderolabs/kubelet:v1.37.1"); err != nil {
		t.Fatal(err)
	}

	if err := node.PullImage(ctx, newInstaller); err != nil {
		t.Fatal(err)
	}

	want := []string{
		"CRI NS_CRI registry.k8s.io/kube-apiserver:v1.37.1",
		"CRI NS_SYSTEM ghcr.io/siderolabs/kubelet:v1.37.1",
		"CONTAINERD NS_SYSTEM " + newInstaller,
	}
	if got := s.PulledInto(); !slices.Equal(got, want) {
		t.Errorf("pulled into\n%q\nwant\n%q", got, want)
	}
}
