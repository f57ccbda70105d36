package talostest

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/configdiff"
	"github.com/siderolabs/talos/pkg/machinery/config/container"
)

// canApplyImmediate is Runtime.CanApplyImmediate of Talos up to 1.13 (v1.13.9, the same in
// v1.12.9: internal/app/machined/pkg/runtime/v1alpha1/v1alpha1_runtime.go): a change can
// be applied without a reboot when the v1alpha1 documents differ only in the fields listed
// live there. Other documents are not compared, as there.
func canApplyImmediate(current, next config.Provider) error {
	if current == nil {
		return errors.New("no current config")
	}

	currentConfig := current.RawV1Alpha1()
	if currentConfig == nil {
		return errors.New("current config is not v1alpha1")
	}

	newConfig := next.RawV1Alpha1()
	if newConfig == nil {
		return errors.New("new config is not v1alpha1")
	}

	newConfig = newConfig.DeepCopy()

	// The fields Talos 1.13 applies live: .debug, .cluster, .machine.{ca, acceptedCAs,
	// time, certSANs, install, network, sysfs, sysctls, logging, controlPlane, kubelet,
	// kernel, registries, pods, seccompProfiles, nodeAnnotations, nodeLabels, nodeTaints}
	// and .machine.features.{kubernetesTalosAPIAccess, kubePrism, hostDNS, imageCache,
	// nodeAddressSortAlgorithm}.
	newConfig.ConfigDebug = currentConfig.ConfigDebug
	newConfig.ClusterConfig = currentConfig.ClusterConfig

	if newConfig.MachineConfig != nil && currentConfig.MachineConfig != nil {
		nm, cm := newConfig.MachineConfig, currentConfig.MachineConfig
		nm.MachineCA = cm.MachineCA
		nm.MachineAcceptedCAs = cm.MachineAcceptedCAs
		nm.MachineTime = cm.MachineTime //nolint:staticcheck // as Talos 1.13 does
		nm.MachineCertSANs = cm.MachineCertSANs
		nm.MachineInstall = cm.MachineInstall //nolint:staticcheck // as Talos 1.13 does
		nm.MachineNetwork = cm.MachineNetwork //nolint:staticcheck // as Talos 1.13 does
		nm.MachineSysfs = cm.MachineSysfs     //nolint:staticcheck // as Talos 1.13 does
		nm.MachineSysctls = cm.MachineSysctls //nolint:staticcheck // as Talos 1.13 does
		nm.MachineLogging = cm.MachineLogging
		nm.MachineControlPlane = cm.MachineControlPlane //nolint:staticcheck // as Talos 1.13 does
		nm.MachineKubelet = cm.MachineKubelet           //nolint:staticcheck // as Talos 1.13 does
		nm.MachineKernel = cm.MachineKernel             //nolint:staticcheck // as Talos 1.13 does
		nm.MachineRegistries = cm.MachineRegistries     //nolint:staticcheck // as Talos 1.13 does
		nm.MachinePods = cm.MachinePods                 //nolint:staticcheck // as Talos 1.13 does
		nm.MachineSeccompProfiles = cm.MachineSeccompProfiles
		nm.MachineNodeAnnotations = cm.MachineNodeAnnotations //nolint:staticcheck // as Talos 1.13 does
		nm.MachineNodeLabels = cm.MachineNodeLabels           //nolint:staticcheck // as Talos 1.13 does
		nm.MachineNodeTaints = cm.MachineNodeTaints           //nolint:staticcheck // as Talos 1.13 does

		if nm.MachineFeatures != nil && cm.MachineFeatures != nil {
			nf, cf := nm.MachineFeatures, cm.MachineFeatures
			nf.KubernetesTalosAPIAccessConfig = cf.KubernetesTalosAPIAccessConfig //nolint:staticcheck // as Talos 1.13 does
			nf.KubePrismSupport = cf.KubePrismSupport                             //nolint:staticcheck // as Talos 1.13 does
			nf.HostDNSSupport = cf.HostDNSSupport                                 //nolint:staticcheck // as Talos 1.13 does
			nf.ImageCacheSupport = cf.ImageCacheSupport                           //nolint:staticcheck // as Talos 1.13 does
			nf.FeatureNodeAddressSortAlgorithm = cf.FeatureNodeAddressSortAlgorithm
		}
	}

	if !reflect.DeepEqual(currentConfig, newConfig) {
		diff, err := configdiff.DiffConfigs(container.NewV1Alpha1(currentConfig), container.NewV1Alpha1(newConfig))
		if err != nil {
			return fmt.Errorf("error calculating diff: %w", err)
		}

		return fmt.Errorf("this config change can't be applied in immediate mode\ndiff:\n%s", diff)
	}

	return nil
}
