package talostest

import (
	"context"
	"fmt"

	"github.com/cosi-project/runtime/pkg/resource/meta"
	"github.com/cosi-project/runtime/pkg/safe"
	"github.com/cosi-project/runtime/pkg/state"
	"github.com/cosi-project/runtime/pkg/state/registry"
	configbase "github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/resources/k8s"
)

// registerKubernetes adds what a control plane's kubelet reports through machined (the
// namespace k8s and its StaticPodStatus resources: KubeletStaticPodController of
// internal/app/machined/pkg/controllers/k8s/kubelet_static_pod.go, v1.14.1) and the
// bootstrap manifests it renders (namespace controlplane, Manifest resources).
func registerKubernetes(ctx context.Context, st state.State) error {
	for ns, description := range map[string]string{
		k8s.NamespaceName:             "Kubernetes all the things.",
		k8s.ControlPlaneNamespaceName: "Kubernetes control plane resources.",
	} {
		if err := registry.NewNamespaceRegistry(st).Register(ctx, ns, description); err != nil {
			return fmt.Errorf("register namespace %s: %w", ns, err)
		}
	}

	for _, r := range []meta.ResourceWithRD{&k8s.StaticPodStatus{}, &k8s.Manifest{}, &k8s.Nodename{}} {
		if err := registry.NewResourceRegistry(st).Register(ctx, r); err != nil {
			return fmt.Errorf("register %T: %w", r, err)
		}
	}

	return nil
}

// staticPodComponents are the static pods a control plane runs.
var staticPodComponents = []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler"}

// syncStaticPods makes the static pods of a control plane run the images its config sets,
// at once and ready, as a kubelet restarting them would once the new image runs. A worker
// runs none.
func syncStaticPods(ctx context.Context, st state.State, node string, cfg configbase.Provider) error {
	if cfg == nil || cfg.Machine() == nil || !cfg.Machine().Type().IsControlPlane() {
		return nil
	}

	images := map[string]string{
		"kube-apiserver":          cfg.K8sAPIServerConfig().Image(),
		"kube-controller-manager": cfg.K8sControllerManagerConfig().Image(),
		"kube-scheduler":          cfg.K8sSchedulerConfig().Image(),
	}

	if err := proxyManifest(ctx, st, cfg); err != nil {
		return err
	}

	for _, comp := range staticPodComponents {
		id := "kube-system/" + comp + "-" + node

		status := map[string]any{
			"phase":             "Running",
			"conditions":        []any{map[string]any{"type": "Ready", "status": "True"}},
			"containerStatuses": []any{map[string]any{"name": comp, "image": images[comp], "ready": true}},
		}

		err := safe.StateModify(ctx, st, k8s.NewStaticPodStatus(k8s.NamespaceName, id), func(r *k8s.StaticPodStatus) error {
			r.TypedSpec().PodStatus = status

			return nil
		})
		if err != nil {
			return fmt.Errorf("static pod %s: %w", id, err)
		}
	}

	return nil
}

// proxyManifest is the bootstrap manifest of kube-proxy a control plane renders from its
// config (machined's manifest controller names it 10-kube-proxy), reduced to its DaemonSet's
// image; none when kube-proxy is disabled.
func proxyManifest(ctx context.Context, st state.State, cfg configbase.Provider) error {
	m := k8s.NewManifest(k8s.ControlPlaneNamespaceName, "10-kube-proxy")

	if !cfg.K8sProxyConfig().Enabled() {
		if err := st.Destroy(ctx, m.Metadata()); err != nil && !state.IsNotFoundError(err) {
			return err
		}

		return nil
	}

	daemonSet := map[string]any{
		"apiVersion": "apps/v1", "kind": "DaemonSet",
		"metadata": map[string]any{"name": "kube-proxy", "namespace": "kube-system"},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"containers": []any{map[string]any{"name": "kube-proxy", "image": cfg.K8sProxyConfig().Image()}},
		}}},
	}

	return safe.StateModify(ctx, st, m, func(r *k8s.Manifest) error {
		r.TypedSpec().Items = []k8s.SingleManifest{{Object: daemonSet}}

		return nil
	})
}

// StaticPodImages returns the image each static pod of the node runs, by component.
func (s *Server) StaticPodImages(ctx context.Context) (map[string]string, error) {
	list, err := safe.StateListAll[*k8s.StaticPodStatus](ctx, s.m.state)
	if err != nil {
		return nil, err
	}

	out := map[string]string{}

	for r := range list.All() {
		for _, comp := range staticPodComponents {
			if r.Metadata().ID() != "kube-system/"+comp+"-"+s.m.node.Name {
				continue
			}

			if cs, ok := r.TypedSpec().PodStatus["containerStatuses"].([]any); ok && len(cs) > 0 {
				if c, ok := cs[0].(map[string]any); ok {
					out[comp], _ = c["image"].(string)
				}
			}
		}
	}

	return out, nil
}
