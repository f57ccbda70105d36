package talhelper

import (
	"github.com/siderolabs/talos/pkg/machinery/config/types/block"
	"github.com/siderolabs/talos/pkg/machinery/config/types/network"
	"github.com/siderolabs/talos/pkg/machinery/config/types/runtime/extensions"
	"github.com/siderolabs/talos/pkg/machinery/config/types/v1alpha1"
	"github.com/siderolabs/talos/pkg/machinery/nethelpers"
)

// The shapes talhelper v3.1.16 reads a node's documents fields into (its config package's
// types, over Talos machinery's): typed reads an entry through them, so a key they do not
// have is dropped as talhelper drops it.
type (
	// volumeEntry is a volumes entry, a VolumeConfig.
	volumeEntry struct {
		Name         string                 `yaml:"name"`
		Provisioning block.ProvisioningSpec `yaml:"provisioning"`
		Encryption   block.EncryptionSpec   `yaml:"encryption"`
	}

	// userVolumeEntry is a userVolumes entry, a UserVolumeConfig.
	userVolumeEntry struct {
		Name         string                 `yaml:"name"`
		VolumeType   *block.VolumeType      `yaml:"volumeType"`
		Provisioning block.ProvisioningSpec `yaml:"provisioning"`
		Filesystem   block.FilesystemSpec   `yaml:"filesystem"`
		Encryption   block.EncryptionSpec   `yaml:"encryption"`
	}

	// firewallEntry is ingressFirewall: the default action and a NetworkRuleConfig per rule.
	firewallEntry struct {
		DefaultAction nethelpers.DefaultAction `yaml:"defaultAction"`
		Rules         []struct {
			Name         string                   `yaml:"name"`
			PortSelector network.RulePortSelector `yaml:"portSelector"`
			Ingress      network.IngressConfig    `yaml:"ingress"`
		} `yaml:"rules"`
	}

	// machineFileEntry is a machineFiles entry: a machine.files entry and skipEnvsubst.
	machineFileEntry struct {
		v1alpha1.MachineFile `yaml:",inline"`
		SkipEnvsubst         bool `yaml:"skipEnvsubst"`
	}

	// inlineManifestEntry is an inlineManifests entry: a cluster.inlineManifests entry and
	// skipEnvsubst.
	inlineManifestEntry struct {
		v1alpha1.ClusterInlineManifest `yaml:",inline"`
		SkipEnvsubst                   bool `yaml:"skipEnvsubst"`
	}

	// extensionServiceEntry is an extensionServices entry, an ExtensionServiceConfig.
	extensionServiceEntry struct {
		Name        string                    `yaml:"name"`
		ConfigFiles extensions.ConfigFileList `yaml:"configFiles"`
		Environment []string                  `yaml:"environment"`
	}
)
