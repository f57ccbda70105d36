package talos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/cosi-project/runtime/pkg/resource"
	"github.com/cosi-project/runtime/pkg/safe"
	"github.com/siderolabs/talos/pkg/machinery/api/common"
	"github.com/siderolabs/talos/pkg/machinery/api/machine"
	"github.com/siderolabs/talos/pkg/machinery/resources/k8s"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// StaticPod is a static pod as the node's kubelet reports it (the StaticPodStatus
// resources machined keeps from the kubelet's pod list).
type StaticPod struct {
	// ID is "namespace/name", e.g. "kube-system/kube-apiserver-k8s-master".
	ID string
	// Images are the images its containers run.
	Images []string
	// Ready is the pod's Ready condition.
	Ready bool
}

// KubernetesNode is the Kubernetes side of a node's Talos API, for a Kubernetes upgrade.
// The nodes of ClientDialer implement it; talos.Node stays as every caller knows it.
type KubernetesNode interface {
	// StaticPods lists the node's static pods (control planes run kube-apiserver,
	// kube-controller-manager and kube-scheduler as static pods).
	StaticPods(ctx context.Context) ([]StaticPod, error)
	// PullCRIImage pulls an image into the containerd of the pods (Talos ≥ 1.13).
	PullCRIImage(ctx context.Context, image string) error
	// PullKubeletImage pulls a kubelet image where Talos' kubelet service looks for it: the
	// pods' containerd, in Talos' system namespace (Talos ≥ 1.13).
	PullKubeletImage(ctx context.Context, image string) error
	// BootstrapManifests are the manifests a control plane renders for the cluster
	// (kube-proxy, CoreDNS, the CNI…), as talosctl upgrade-k8s reads them to sync.
	BootstrapManifests(ctx context.Context) ([]*unstructured.Unstructured, error)
}

// podStatus is the part of a Kubernetes PodStatus a static pod's status is read for.
type podStatus struct {
	Conditions []struct {
		Type   string `json:"type"`
		Status string `json:"status"`
	} `json:"conditions"`
	ContainerStatuses []struct {
		Image string `json:"image"`
	} `json:"containerStatuses"`
}

// ParseStaticPod reads a StaticPodStatus resource's spec (a PodStatus as JSON fields).
func ParseStaticPod(id string, status map[string]any) (StaticPod, error) {
	data, err := json.Marshal(status)
	if err != nil {
		return StaticPod{}, fmt.Errorf("static pod %s: %w", id, err)
	}

	var ps podStatus
	if err := json.Unmarshal(data, &ps); err != nil {
		return StaticPod{}, fmt.Errorf("static pod %s: %w", id, err)
	}

	p := StaticPod{ID: id}

	for _, c := range ps.ContainerStatuses {
		p.Images = append(p.Images, c.Image)
	}

	for _, c := range ps.Conditions {
		if c.Type == "Ready" {
			p.Ready = c.Status == "True"
		}
	}

	return p, nil
}

func (n *clientNode) StaticPods(ctx context.Context) ([]StaticPod, error) {
	list, err := safe.StateListAll[*k8s.StaticPodStatus](n.with(ctx), n.c.COSI)
	if err != nil {
		return nil, err
	}

	var out []StaticPod

	for r := range list.All() {
		p, err := ParseStaticPod(r.Metadata().ID(), r.TypedSpec().PodStatus)
		if err != nil {
			return nil, err
		}

		out = append(out, p)
	}

	return out, nil
}

func (n *clientNode) PullCRIImage(ctx context.Context, image string) error {
	return n.pull(ctx, &common.ContainerdInstance{Driver: common.ContainerDriver_CRI, Namespace: common.ContainerdNamespace_NS_CRI}, image)
}

// The kubelet service pulls its image into the CRI containerd under the system namespace
// (internal/app/machined/pkg/system/services/kubelet.go, v1.14.1), as talosctl's pre-pull
// does; Talos' own system containerd is another store the kubelet never reads.
func (n *clientNode) PullKubeletImage(ctx context.Context, image string) error {
	return n.pull(ctx, &common.ContainerdInstance{Driver: common.ContainerDriver_CRI, Namespace: common.ContainerdNamespace_NS_SYSTEM}, image)
}

// pull pulls image into one containerd of the node, through ImageService.Pull.
func (n *clientNode) pull(ctx context.Context, into *common.ContainerdInstance, image string) error {
	stream, err := n.c.ImageClient.Pull(n.with(ctx), &machine.ImageServicePullRequest{Containerd: into, ImageRef: image})
	if err != nil {
		return err
	}

	for {
		if _, err := stream.Recv(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}

			return err
		}
	}
}

func (n *clientNode) BootstrapManifests(ctx context.Context) ([]*unstructured.Unstructured, error) {
	// go-kubernetes' manifests.GetBootstrapManifests, read here: its package links the
	// server-side apply machinery talops does without (docs/performance.md).
	items, err := safe.StateList[*k8s.Manifest](n.with(ctx), n.c.COSI, resource.NewMetadata(k8s.ControlPlaneNamespaceName, k8s.ManifestType, "", resource.VersionUndefined))
	if err != nil {
		return nil, fmt.Errorf("read the bootstrap manifests: %w", err)
	}

	var objects []*unstructured.Unstructured

	for m := range items.All() {
		for _, o := range m.TypedSpec().Items {
			objects = append(objects, &unstructured.Unstructured{Object: o.Object})
		}
	}

	return objects, nil
}
