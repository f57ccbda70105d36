package plan

// The reboot tables say, per range of Talos releases, when a change to a v1alpha1 field or
// to another document takes effect. They are read from the Talos source, one cited place
// per group of rows; a field no row names needs a reboot on every release (a wasted reboot is harmless, a
// change reported live that has not happened is not).
//
// To check them against a new release, read in github.com/siderolabs/talos at its tag:
//   - up to 1.13: Runtime.CanApplyImmediate in
//     internal/app/machined/pkg/runtime/v1alpha1/v1alpha1_runtime.go (the fields AUTO
//     applies without a reboot; every other v1alpha1 difference reboots the node);
//   - from 1.14 (ApplyConfiguration in internal/app/machined/internal/server/v1alpha1/
//     v1alpha1_server.go never reboots): the controllers under
//     internal/app/machined/pkg/controllers that read the MachineConfig resource, and the
//     Boot sequence in internal/app/machined/pkg/runtime/v1alpha1/v1alpha1_sequencer.go,
//     which runs once per boot.
//
// In a clone of github.com/siderolabs/talos:
//
//	git show v1.13.9:internal/app/machined/pkg/runtime/v1alpha1/v1alpha1_runtime.go |
//	  sed -n '/^func (r \*Runtime) CanApplyImmediate/,/^}/p'
//	git grep -l 'config.MachineConfig\](ctx' v1.14.1 -- internal/app/machined/pkg/controllers
//	git show v1.14.1:internal/app/machined/pkg/runtime/v1alpha1/v1alpha1_sequencer.go |
//	  sed -n '/^func (\*Sequencer) Boot/,/^}/p'

// effect is when a changed field takes effect.
type effect int

const (
	// afterReboot is the zero value, so that a row without an effect is never live.
	afterReboot effect = iota
	live
	// liveWhenOnlyAdded: a list that only gained items is applied live; losing or
	// changing one needs a reboot.
	liveWhenOnlyAdded
	// nextUpgrade: the field only matters to the next upgrade.
	nextUpgrade
	// liveUnlessChanged: a document added or removed is applied live; one that changed
	// needs a reboot.
	liveUnlessChanged
)

// field is one row of a release's table: changes at or under path take effect as effect
// says. The longest matching path wins.
type field struct {
	path   string
	effect effect
	// within, when set, makes the row live only while that section is in both configs:
	// Talos copies the row's field from the old config only when the section exists.
	within string
	// reason, when set, replaces the generic reason and says why Talos waits.
	reason string
}

// release is the table of a range of Talos releases.
type release struct {
	// upTo is the last minor release of the range ("1.12"); empty for every later one.
	upTo string
	// rebootSuffix ends the generic reason of a field that needs a reboot.
	rebootSuffix string
	// rebootNote, when set, is said once after the reasons of a change that needs a reboot.
	rebootNote string
	fields     []field
	// documents are the rows for documents other than v1alpha1, by kind.
	documents []document
	// otherDocuments is the effect of a document kind no row names.
	otherDocuments effect
}

// document is one row of a release's table of documents other than v1alpha1.
type document struct {
	kinds  []string
	effect effect
	// rebootSuffix, when set, ends the reason of a change that needs a reboot.
	rebootSuffix string
}

// canApplyImmediate is the list of Runtime.CanApplyImmediate, identical at v1.11.6,
// v1.12.0, v1.12.11, v1.13.0 and v1.13.9
// (internal/app/machined/pkg/runtime/v1alpha1/v1alpha1_runtime.go): ApplyConfiguration
// AUTO copies these fields from the running config into the new one and reboots the node
// when anything else still differs (v1alpha1_server.go, ApplyConfiguration); NO_REBOOT
// refuses such a change. Documents other than v1alpha1 are not compared.
func canApplyImmediate() []field {
	return []field{
		{path: "debug", effect: live},
		{path: "cluster", effect: live},
		{path: "machine.ca", effect: live},
		{path: "machine.acceptedCAs", effect: live},
		{path: "machine.time", effect: live},
		{path: "machine.certSANs", effect: live},
		{path: "machine.install", effect: nextUpgrade},
		{path: "machine.network", effect: live},
		{path: "machine.sysfs", effect: live},
		{path: "machine.sysctls", effect: live},
		{path: "machine.logging", effect: live},
		{path: "machine.controlPlane", effect: live},
		{path: "machine.kubelet", effect: live},
		{path: "machine.kernel", effect: live},
		{path: "machine.registries", effect: live},
		{path: "machine.pods", effect: live},
		{path: "machine.seccompProfiles", effect: live},
		{path: "machine.nodeAnnotations", effect: live},
		{path: "machine.nodeLabels", effect: live},
		{path: "machine.nodeTaints", effect: live},
		// The features are copied one by one, and only when both configs have a
		// machine.features section.
		{path: "machine.features.kubernetesTalosAPIAccess", effect: live, within: "machine.features"},
		{path: "machine.features.kubePrism", effect: live, within: "machine.features"},
		{path: "machine.features.hostDNS", effect: live, within: "machine.features"},
		{path: "machine.features.imageCache", effect: live, within: "machine.features"},
		{path: "machine.features.nodeAddressSortAlgorithm", effect: live, within: "machine.features"},
	}
}

// documentsUpTo113: CanApplyImmediate compares only the v1alpha1 document, so AUTO
// applies every other document without a reboot; these are the ones that then wait for
// one anyway, and talops reboots the node for them.
func documentsUpTo113() []document {
	return []document{
		// runtime/environment.go, EnvironmentController (1.13.9, the same as in 1.14.1):
		// sets machined's environment; the services started at boot keep theirs.
		{kinds: []string{"EnvironmentConfig"}},
		// A provisioned volume is not changed in place (not checked for these releases;
		// a reboot is the safe side).
		{
			kinds:        []string{"VolumeConfig", "UserVolumeConfig", "RawVolumeConfig", "ExistingVolumeConfig", "ExternalVolumeConfig", "SwapVolumeConfig"},
			effect:       liveUnlessChanged,
			rebootSuffix: ": volume changes (such as encryption keys) take effect after a reboot",
		},
	}
}

// releases are the tables, oldest first. Paths below are in
// internal/app/machined/pkg/controllers of github.com/siderolabs/talos v1.14.1 unless
// they name another directory.
var releases = []release{
	{
		upTo: "1.12", rebootSuffix: ": needs a reboot on Talos ≤ 1.13",
		fields: canApplyImmediate(), documents: documentsUpTo113(), otherDocuments: live,
	},
	{
		upTo: "1.13", rebootSuffix: ": needs a reboot on Talos ≤ 1.13",
		fields: canApplyImmediate(), documents: documentsUpTo113(), otherDocuments: live,
	},
	{
		rebootSuffix: ": takes effect after a reboot",
		rebootNote:   "Talos ≥ 1.14 never reboots on apply: talops reboots the node",
		fields: []field{
			// runtime/kernel_param_config.go, KernelParamConfigController: sets the merged
			// SysctlConfig and SysfsConfig (v1alpha1 values included) on every config change.
			{path: "machine.sysctls", effect: live},
			{path: "machine.sysfs", effect: live},

			// runtime/kernel_module_config.go, KernelModuleConfigController: loads the
			// modules of the config; nothing unloads a module that left it.
			{
				path: "machine.kernel.modules", effect: liveWhenOnlyAdded,
				reason: "machine.kernel.modules lost or changed a module: takes effect after a reboot",
			},

			// k8s/kubelet_config.go, KubeletConfigController (K8sKubeletConfig,
			// K8sCredentialProviderConfig), and k8s/kubelet_service.go,
			// KubeletServiceController, which restarts the kubelet when its spec changes;
			// k8s/nodeip_config.go, NodeIPConfigController (machine.kubelet.nodeIP).
			{path: "machine.kubelet", effect: live},
			// k8s/static_pod_config.go, StaticPodConfigController (K8sStaticPodConfigs).
			{path: "machine.pods", effect: live},
			// k8s/node_label_spec.go, node_annotation_spec.go, node_taint_spec.go:
			// NodeLabelSpecController, NodeAnnotationSpecController, NodeTaintSpecController
			// (K8sNodeConfig; the taints include cluster.allowSchedulingOnControlPlanes).
			{path: "machine.nodeLabels", effect: live},
			{path: "machine.nodeAnnotations", effect: live},
			{path: "machine.nodeTaints", effect: live},
			// k8s/control_plane.go, ControlPlaneControllerManagerController and
			// ControlPlaneSchedulerController (K8sControllerManagerConfig, K8sSchedulerConfig).
			{path: "machine.controlPlane", effect: live},

			// secrets/root.go, RootOSController: the machine CA, accepted CAs, token and
			// certificate SANs of the Talos API.
			{path: "machine.ca", effect: live},
			{path: "machine.acceptedCAs", effect: live},
			{path: "machine.token", effect: live},
			{path: "machine.certSANs", effect: live},

			// network/device_config.go, DeviceConfigController (interfaces),
			// hostname_config.go, HostnameConfigController, resolver_config.go,
			// ResolverConfigController, static_host.go, StaticHostController (extraHosts),
			// and kubespan/config.go, ConfigController.
			{path: "machine.network", effect: live},
			// network/timeserver_config.go, TimeServerConfigController, and time/sync.go,
			// SyncController (NetworkTimeSyncConfig).
			{path: "machine.time", effect: live},
			// cri/registries_config.go, RegistriesConfigController, and cri/service.go,
			// ServiceController, which restarts the CRI when its configuration file changes.
			{path: "machine.registries", effect: live},
			// cri/runtime_spec_config.go, RuntimeSpecConfigController, and cri/service.go,
			// ServiceController, which restarts the CRI when the base runtime spec changes.
			{path: "machine.baseRuntimeSpecOverrides", effect: live},
			// cri/seccomp_profile.go, SeccompProfileController.
			{path: "machine.seccompProfiles", effect: live},
			// runtime/v1alpha2/v1alpha2_controller.go, Controller.watchMachineConfig:
			// updateLoggingConfig on every config change.
			{path: "machine.logging", effect: live},
			// files/udev.go, UdevRulesController: writes the rules, then udevadm
			// control --reload and trigger.
			{path: "machine.udev", effect: live},
			// block/user_disk_config.go, UserDiskConfigController: turns machine.disks into
			// volume configs on every config change (the Boot sequence only waits for it).
			{path: "machine.disks", effect: live},

			// kubeaccess/config.go, ConfigController (K8sTalosAPIAccessConfig).
			{path: "machine.features.kubernetesTalosAPIAccess", effect: live},
			// k8s/kubeprism_config.go, KubePrismConfigController (K8sKubePrismConfig).
			{path: "machine.features.kubePrism", effect: live},
			// network/hostdns_config.go, HostDNSConfigController (NetworkHostDNSConfig).
			{path: "machine.features.hostDNS", effect: live},
			// cri/image_cache_config.go, ImageCacheConfigController (ImageCacheConfig).
			{path: "machine.features.imageCache", effect: live},
			// network/node_address_sort_algorithm.go, NodeAddressSortAlgorithmController.
			{path: "machine.features.nodeAddressSortAlgorithm", effect: live},
			// network/hostname_config.go, HostnameConfigController (AutoHostname).
			{path: "machine.features.stableHostname", effect: live},
			// block/internal/volumes/volumeconfig/system_volumes.go sets it as a mount
			// option of EPHEMERAL, and block/mount.go applies mount options only when it
			// mounts a volume, which for EPHEMERAL is once per boot.
			{
				path:   "machine.features.diskQuotaSupport",
				reason: "machine.features.diskQuotaSupport changed: EPHEMERAL takes its mount options when it is mounted at boot, so the change takes effect after a reboot",
			},

			// runtime/v1alpha1/v1alpha1_sequencer.go, Boot: WriteUserFiles
			// (v1alpha1_sequencer_tasks.go) writes machine.files once per boot, and no
			// controller reads them (only a file at /etc/cri/conf.d/20-customization.part is
			// also read as a CRI customization).
			{
				path:   "machine.files",
				reason: "machine.files changed: Talos writes files only at boot, so the change takes effect after a reboot",
			},
			// runtime/v1alpha1/v1alpha1_sequencer.go, Boot: SetUserEnvVars sets machine.env
			// once per boot (internal/pkg/environment); runtime/environment.go,
			// EnvironmentController, reads only EnvironmentConfig documents.
			{
				path:   "machine.env",
				reason: "machine.env changed: environment variables take effect after a reboot",
			},
			// block/volume_config.go, VolumeConfigController, and
			// block/internal/volumes/volumeconfig/system_volumes.go: the encryption of
			// STATE and EPHEMERAL is set up when the volume is opened at boot.
			{
				path:   "machine.systemDiskEncryption",
				reason: "machine.systemDiskEncryption changed: volume encryption takes effect after a reboot",
			},
			// system/services/containerd.go, cri.go, apid.go, trustd.go, etcd.go,
			// kubelet.go, udevd.go, extension.go read Debug when they start the service;
			// only machined's console logging follows it live.
			{path: "debug"},

			// k8s/control_plane.go: ControlPlaneAPIServerController,
			// ControlPlaneAdmissionControlController, ControlPlaneAuditPolicyController,
			// ControlPlaneAuthenticationController, ControlPlaneAuthorizationController,
			// ControlPlaneControllerManagerController, ControlPlaneSchedulerController,
			// ControlPlaneBootstrapManifestsController (proxy, CoreDNS, flannel, network)
			// and ControlPlaneExtraManifestsController (extra and inline manifests);
			// secrets/root.go, RootKubernetesController and secrets/kubelet.go,
			// KubeletController (CAs, service account, encryption secrets, bootstrap
			// token, endpoint); cluster/config.go, ConfigController, and cluster/info.go,
			// InfoController (discovery, cluster id and name).
			{path: "cluster", effect: live},
			// etcd/config.go, ConfigController, and etcd/spec.go, SpecController, update
			// the etcd spec, but system/services/etcd.go builds etcd's arguments when the
			// service starts and no controller restarts it (only the kubelet and the CRI
			// are restarted by controllers).
			{path: "cluster.etcd"},

			// A new installer never upgrades a node by itself.
			{path: "machine.install", effect: nextUpgrade},
		},
		documents: []document{
			// runtime/unattended_install.go, UnattendedInstallController: from 1.14 the
			// installer lives in this document; like machine.install, it only matters to
			// the next upgrade.
			{kinds: []string{unattendedInstallKind}, effect: nextUpgrade},
			// runtime/kernel_module_config.go, KernelModuleConfigController: loads, never
			// unloads.
			{kinds: []string{"KernelModuleConfig"}, effect: liveWhenOnlyAdded},
			// runtime/environment.go, EnvironmentController, sets machined's environment,
			// but the services Talos started at boot keep theirs.
			{kinds: []string{"EnvironmentConfig"}},
			// pkg/sandboxd/enabled.go: read by StartAllServices (the Boot sequence) and by
			// system/services/cri.go when the CRI starts.
			{kinds: []string{"SecurityProfileConfig"}},
			// block/volume_config.go, VolumeConfigController, and
			// block/internal/volumes/volumeconfig (system_volumes.go, user_volumes.go):
			// a volume is provisioned and mounted live, but a provisioned one is not
			// changed (its encryption is set up when it is opened at boot).
			{
				kinds: []string{
					"VolumeConfig", "UserVolumeConfig", "RawVolumeConfig", "ExistingVolumeConfig",
					"ExternalVolumeConfig", "SwapVolumeConfig", "LVMLogicalVolumeConfig",
				},
				effect:       liveUnlessChanged,
				rebootSuffix: ": volume changes (such as encryption keys) take effect after a reboot",
			},
			// block/zswap_config.go, ZswapConfigController; block/internal/volumes/
			// volumeconfig trim.go and scrub.go; storage/lvm_volume_group_spec.go,
			// md_array_spec.go (storage/lvm_logical_volume_spec.go is with the volumes
			// above: whether it changes a logical volume in place was not checked).
			{
				kinds: []string{
					"ZswapConfig", "FilesystemTrimConfig", "FilesystemScrubConfig",
					"LVMVolumeGroupConfig", "RAIDArrayConfig",
				},
				effect: live,
			},
			// network/: HostnameConfigController, ResolverConfigController,
			// StaticHostController, TimeServerConfigController (and time/sync.go),
			// LinkConfigController, AddressConfigController and RouteConfigController
			// (NetworkCommonLinkConfigs), LinkAliasConfigController,
			// OperatorConfigController (DHCP), OperatorVIPConfigController (VIPs),
			// ProbeConfigController, RoutingRuleConfigController,
			// BGPInstanceConfigController, EthernetConfigController,
			// NfTablesChainConfigController (NetworkRules), HostDNSConfigController;
			// kubespan/config.go, ConfigController; siderolink/config.go,
			// ConfigController.
			{
				kinds: []string{
					"HostnameConfig", "ResolverConfig", "StaticHostConfig", "TimeSyncConfig",
					"LinkConfig", "BondConfig", "BridgeConfig", "VLANConfig", "DummyLinkConfig",
					"WireguardConfig", "VethConfig", "VRFConfig", "LinkAliasConfig",
					"DHCPv4Config", "DHCPv6Config", "Layer2VIPConfig", "HCloudVIPConfig",
					"HTTPProbeConfig", "TCPProbeConfig", "BlackholeRouteConfig", "RoutingRuleConfig",
					"BGPInstanceConfig", "EthernetConfig", "NetworkRuleConfig",
					"NetworkDefaultActionConfig", "KubeSpanConfig", "KubeSpanEndpointsConfig",
					"SideroLinkConfig",
				},
				effect: live,
			},
			// cluster/config.go, ConfigController, and cluster/info.go, InfoController.
			{kinds: []string{"DiscoveryServiceConfig", "DiscoveryIdentityConfig"}, effect: live},
			// k8s/control_plane.go (the ControlPlane*Controller), k8s/kubelet_config.go,
			// KubeletConfigController, k8s/static_pod_config.go, k8s/kubeprism_config.go,
			// the node label, annotation and taint controllers, kubeaccess/config.go,
			// secrets/root.go, RootKubernetesController, and secrets/kubelet.go.
			{
				kinds: []string{
					"KubeAPIServerCAConfig", "KubeAPIServerConfig", "KubeAdmissionControlConfig",
					"KubeAggregatorCAConfig", "KubeAuditPolicyConfig", "KubeAuthenticationConfig",
					"KubeAuthorizerConfig", "KubeClusterConfig", "KubeControllerManagerConfig",
					"KubeCoreDNSConfig", "KubeCredentialProviderConfig", "KubeEtcdEncryptionConfig",
					"KubeExternalManifestConfig", "KubeFlannelCNIConfig", "KubeInlineManifestConfig",
					"KubeNetworkConfig", "KubeNodeConfig", "KubePrismConfig", "KubeProxyConfig",
					"KubeSchedulerConfig", "KubeServiceAccountConfig", "KubeStaticPodConfig",
					"KubeTalosAPIAccessConfig", "KubeletConfig",
				},
				effect: live,
			},
			// cri/registries_config.go, RegistriesConfigController;
			// cri/image_cache_config.go; cri/runtime_spec_config.go and
			// cri/customization_config.go, with cri/service.go, ServiceController,
			// restarting the CRI when its configuration changes.
			{
				kinds: []string{
					"RegistryMirrorConfig", "RegistryAuthConfig", "RegistryTLSConfig",
					"ImageCacheConfig", "CRIBaseRuntimeSpecConfig", "CRICustomizationConfig",
				},
				effect: live,
			},
			// runtime/kernel_param_config.go, KernelParamConfigController; files/udev.go,
			// UdevRulesController; files/etc_file_config.go, EtcFileConfigController;
			// secrets/trusted_roots.go, TrustedRootsController;
			// runtime/extension_service_config.go with runtime/extension_service.go,
			// ExtensionServiceController, which restarts the service; containers/config.go,
			// ConfigController; runtime/events_sink_config.go, kmsg_log_config.go,
			// watchdog_timer_config.go, oom.go; hardware/pci_driver_rebind_config.go;
			// security/image_verification_config.go.
			{
				kinds: []string{
					"SysctlConfig", "SysfsConfig", "UdevRulesConfig", "EtcFileConfig",
					"TrustedRootsConfig", "ExtensionServiceConfig", "ContainerConfig",
					"EventSinkConfig", "KmsgLogConfig", "WatchdogTimerConfig", "OOMConfig",
					"PCIDriverRebindConfig", "ImageVerificationConfig",
				},
				effect: live,
			},
		},
	},
}
