//go:build realkube

package kube_test

import (
	"context"
	"slices"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestReachable_ARunningServerAnswers(t *testing.T) {
	t.Parallel()

	c, _ := client(t)

	if err := c.Reachable(context.Background()); err != nil {
		t.Errorf("Reachable: %v", err)
	}
}

func TestNodes_ListsEveryNodeSorted(t *testing.T) {
	t.Parallel()

	c, env := client(t)
	env.ReadyNode(t, "nodes-list-b")
	env.ReadyNode(t, "nodes-list-a")

	got, err := c.Nodes(context.Background())
	if err != nil {
		t.Fatalf("Nodes: %v", err)
	}

	for _, want := range []string{"nodes-list-a", "nodes-list-b"} {
		if !slices.Contains(got, want) {
			t.Errorf("Nodes = %v, want %s among them", got, want)
		}
	}

	if !slices.IsSorted(got) {
		t.Errorf("Nodes = %v, not sorted", got)
	}
}

func TestInternalIPs_MapsEachNodeToItsInternalAddressesOnly(t *testing.T) {
	t.Parallel()

	c, env := client(t)
	env.ReadyNode(t, "talos-4xk-91q")
	env.NodeAddresses(t, "talos-4xk-91q", "10.0.20.101", "fd00::101")

	got, err := c.InternalIPs(context.Background())
	if err != nil {
		t.Fatalf("InternalIPs: %v", err)
	}

	if want := []string{"10.0.20.101", "fd00::101"}; !slices.Equal(got["talos-4xk-91q"], want) {
		t.Errorf("InternalIPs[talos-4xk-91q] = %q, want %q (no Hostname address)", got["talos-4xk-91q"], want)
	}
}

func TestKubeletVersions_MapsEachNodeToWhatItsKubeletReports(t *testing.T) {
	t.Parallel()

	c, env := client(t)
	env.ReadyNode(t, "kubelet-version-1")
	env.ReadyNode(t, "kubelet-version-2")
	env.KubeletVersion(t, "kubelet-version-1", "v1.36.2")

	got, err := c.KubeletVersions(context.Background())
	if err != nil {
		t.Fatalf("KubeletVersions: %v", err)
	}

	if v, ok := got["kubelet-version-1"]; !ok || v != "v1.36.2" {
		t.Errorf("kubelet-version-1 = %q (listed %v), want v1.36.2", v, ok)
	}

	if v, ok := got["kubelet-version-2"]; !ok || v != "" {
		t.Errorf("kubelet-version-2 = %q (listed %v), want listed with no version", v, ok)
	}
}

func TestDeleteNode_DeletesItAndAgainIsNoError(t *testing.T) {
	t.Parallel()

	c, env := client(t)
	env.ReadyNode(t, "delete-node-1")

	for i := range 2 {
		if err := c.DeleteNode(context.Background(), "delete-node-1"); err != nil {
			t.Fatalf("DeleteNode #%d: %v", i+1, err)
		}
	}

	_, err := env.Clientset.CoreV1().Nodes().Get(context.Background(), "delete-node-1", metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("the deleted Node: %v, want NotFound", err)
	}
}
