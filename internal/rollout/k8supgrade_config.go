package rollout

import (
	"fmt"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/configloader"
	"github.com/siderolabs/talos/pkg/machinery/config/configpatcher"
	"github.com/siderolabs/talos/pkg/machinery/config/encoder"
	"github.com/siderolabs/talos/pkg/machinery/config/generate/stdpatches"

	"github.com/talops/talops/internal/plan"
)

// imagePatch is the patch that sets one component's image, in the form the config holds it:
// a field of the v1alpha1 document up to Talos 1.13, its own document from 1.14 (as
// talosctl upgrade-k8s patches it).
func imagePatch(cfg coreconfig.Provider, component, image string) (configpatcher.Patch, error) {
	switch component {
	case plan.K8sAPIServer:
		return stdpatches.PreparePatch(stdpatches.WithKubeAPIServerImage(stdpatches.GuessVersionContractKubeAPIServer(cfg), image))
	case plan.K8sControllerManager:
		return stdpatches.PreparePatch(stdpatches.WithKubeControllerManagerImage(stdpatches.GuessVersionContractKubeControllerManager(cfg), image))
	case plan.K8sScheduler:
		return stdpatches.PreparePatch(stdpatches.WithKubeSchedulerImage(stdpatches.GuessVersionContractKubeScheduler(cfg), image))
	case plan.K8sProxy:
		return stdpatches.PreparePatch(stdpatches.WithKubeProxyImage(stdpatches.GuessVersionContractKubeProxy(cfg), image))
	case plan.K8sKubelet:
		return stdpatches.PreparePatch(stdpatches.WithKubeletImage(stdpatches.GuessVersionContractKubelet(cfg), image))
	}

	return nil, fmt.Errorf("no image to set for %s", component)
}

// k8sConfigs is the config a node takes at each of its steps: its current config with only
// the components moved so far set to their desired images, one more at each step. When the
// last of them says the same as the desired config (only kubernetesVersion moved), the
// desired config itself is the last step, byte for byte, so that a live plan says noop
// afterwards; with other changes riding along it is the desired config only when final
// allows it (every change of the node applies live), and the rollout applies the rest.
func k8sConfigs(current, desired []byte, components []string, final bool) ([][]byte, error) {
	cfg, err := configloader.NewFromBytes(current)
	if err != nil {
		return nil, fmt.Errorf("load the running config: %w", err)
	}

	want, err := configloader.NewFromBytes(desired)
	if err != nil {
		return nil, fmt.Errorf("load the desired config: %w", err)
	}

	out := make([][]byte, 0, len(components))

	for _, comp := range components {
		image := plan.ComponentImage(want, comp)

		p, err := imagePatch(cfg, comp, image)
		if err != nil {
			return nil, err
		}

		patched, err := configpatcher.Apply(configpatcher.WithConfig(cfg), []configpatcher.Patch{p})
		if err != nil {
			return nil, fmt.Errorf("set the %s image: %w", comp, err)
		}

		if cfg, err = patched.Config(); err != nil {
			return nil, fmt.Errorf("set the %s image: %w", comp, err)
		}

		data, err := cfg.EncodeBytes(encoder.WithComments(encoder.CommentsDisabled))
		if err != nil {
			return nil, fmt.Errorf("encode the config with the %s image: %w", comp, err)
		}

		out = append(out, data)
	}

	if last := len(out) - 1; last >= 0 && (final || sameConfig(out[last], desired)) {
		out[last] = desired
	}

	return out, nil
}
