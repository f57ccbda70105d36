package rules

// Finding codes. They are a contract: tools match on them, so they never change meaning.
const (
	// CodeConfigInvalid is a machinery validation error in a node's final config.
	CodeConfigInvalid = "config.invalid"
	// CodeConfigWarning is a machinery validation warning (an error with --strict).
	CodeConfigWarning = "config.warning"
	// CodeConfigContract explains config.invalid errors of fields the release's config
	// format moved (pin configVersion to keep the older format).
	CodeConfigContract = "config.contract"
	// CodePatchInvalid is a patch or complete config that cannot be loaded or applied.
	CodePatchInvalid = "patch.invalid"
	// CodeSecretsThrowaway says a throwaway bundle stood in for the real secrets.
	CodeSecretsThrowaway = "secrets.throwaway"
	// CodeK8sUnsupported is a Kubernetes version outside the Talos release's range.
	CodeK8sUnsupported = "versions.k8s-unsupported"
	// CodeUnknownRelease is a talosVersion that is not a Talos release this tool knows.
	CodeUnknownRelease = "versions.unknown-release"

	// CodeInstallerMismatch is an installer image that is not the factory installer of the
	// node's schematic and Talos version.
	CodeInstallerMismatch = "installer.mismatch"
	// CodeInstallerGHCRRemoved is ghcr.io/siderolabs/installer on Talos 1.14 or later.
	CodeInstallerGHCRRemoved = "installer.ghcr-removed"
	// CodeInstallExtensionsDeprecated is machine.install.extensions instead of a schematic.
	CodeInstallExtensionsDeprecated = "install.extensions-deprecated"
	// CodeSchematicDuplicateExtension is an official extension listed twice in a schematic.
	CodeSchematicDuplicateExtension = "schematic.duplicate-extension"
	// CodeSchematicUnsorted is a schematic whose extensions are not in the factory UI's order.
	CodeSchematicUnsorted = "schematic.unsorted"
	// CodeSchematicOpaque is a schematic file that holds only an ID: its content is unknown.
	CodeSchematicOpaque = "schematic.opaque"
)

// Codes of the release checks: extensions, NVIDIA and version bumps.
const (
	// CodeExtensionUnavailable is an extension, or an extension image tag, the cluster's Talos
	// release does not publish.
	CodeExtensionUnavailable = "extension.unavailable"
	// CodeExtensionRenamed is a schematic extension under an old name the Image Factory maps
	// to a new one.
	CodeExtensionRenamed = "extension.renamed"
	// CodeExtensionDataMissing says the release data to check extensions against is missing.
	CodeExtensionDataMissing = "extension.data-missing"

	// CodeNvidiaFlavourMismatch is lts and production mixed on one node, or against talops.yaml.
	CodeNvidiaFlavourMismatch = "nvidia.flavour-mismatch"
	// CodeNvidiaKmodConflict is the proprietary and the open kernel modules together.
	CodeNvidiaKmodConflict = "nvidia.kmod-conflict"
	// CodeNvidiaKmodMissing is the container toolkit or fabric manager without a kernel module.
	CodeNvidiaKmodMissing = "nvidia.kmod-missing"
	// CodeNvidiaToolkitMissing is a kernel module without the container toolkit.
	CodeNvidiaToolkitMissing = "nvidia.toolkit-missing"
	// CodeNvidiaDriverMismatch is explicit tags whose driver versions differ.
	CodeNvidiaDriverMismatch = "nvidia.driver-mismatch"
	// CodeNvidiaTalosMismatch is an explicit kernel module tag built for another Talos release.
	CodeNvidiaTalosMismatch = "nvidia.talos-mismatch"
	// CodeNvidiaModulesMissing is an NVIDIA kernel module extension whose modules are not loaded.
	CodeNvidiaModulesMissing = "nvidia.modules-missing"
	// CodeNvidiaModulesWithoutDriver is NVIDIA modules loaded on a node without the extension.
	CodeNvidiaModulesWithoutDriver = "nvidia.modules-without-driver"
	// CodeNvidiaSysctlMissing is Talos 1.12 or older without net.core.bpf_jit_harden relaxed.
	CodeNvidiaSysctlMissing = "nvidia.sysctl-missing"
	// CodeNvidiaDriverPin is a driver that does not match nvidia.driver in talops.yaml.
	CodeNvidiaDriverPin = "nvidia.driver-pin"
	// CodeNvidiaDriverChanged is a version bump that moves a node's NVIDIA driver.
	CodeNvidiaDriverChanged = "nvidia.driver-changed"
	// CodeNvidiaRuntimePath is a CRI part pointing the nvidia runtime at a binary Talos lacks.
	CodeNvidiaRuntimePath = "nvidia.runtime-path"
	// CodeNvidiaCDISetup is the pre-1.13 GPU setup (device plugin, RuntimeClass) on CDI releases.
	CodeNvidiaCDISetup = "nvidia.cdi-setup"
	// CodeNvidiaWorkloadIsolation is a GPU node under workload isolation (Talos 1.14 default).
	CodeNvidiaWorkloadIsolation = "nvidia.workload-isolation"
	// CodeNvidiaTrackUnavailable is a driver track the cluster's Talos release does not have
	// (new-feature before 1.15).
	CodeNvidiaTrackUnavailable = "nvidia.track-unavailable"
	// CodeNvidiaOpenOnly is a proprietary kernel module on a track built as open modules only
	// (the LTS track from 1.15, new-feature always).
	CodeNvidiaOpenOnly = "nvidia.open-only"
	// CodeNvidiaToolkitNRI is a GPU setup written for the container toolkit before 1.15,
	// whose extension from 1.15 carries only the driver's userspace.
	CodeNvidiaToolkitNRI = "nvidia.toolkit-nri"
	// CodeNvidiaFabricManager2 is a bump onto the Fabric Manager 2.0 of Talos 1.15.
	CodeNvidiaFabricManager2 = "nvidia.fabricmanager-2"
	// CodeReleaseData says where the facts about a release the embedded data lacks came
	// from: the Image Factory, the release cache, or a derivation.
	CodeReleaseData = "versions.release-data"
	// CodeFactoryContradicts is an Image Factory listing of a release whose NVIDIA driver
	// contradicts the release facts this build verified: the facts are used.
	CodeFactoryContradicts = "versions.factory-contradicts"

	// CodeUpgradeSkipsMinor is a Talos bump that jumps over a minor release.
	CodeUpgradeSkipsMinor = "versions.upgrade-skips-minor"
	// CodeUpgradeUnsupported is a Talos bump the target release refuses from the current one.
	CodeUpgradeUnsupported = "versions.upgrade-unsupported"
	// CodeDowngrade is a Talos version going back.
	CodeDowngrade = "versions.downgrade"
	// CodeK8sSkipsMinor is a Kubernetes bump of more than one minor at once.
	CodeK8sSkipsMinor = "versions.k8s-skips-minor"
	// CodeK8sDowngrade is a Kubernetes version going back.
	CodeK8sDowngrade = "versions.k8s-downgrade"
	// CodeContractChange is a Talos bump that also regenerates every config for a new contract.
	CodeContractChange = "versions.contract-change"
	// CodeCredentialsDestination says a change moves where credentials go or boot images
	// come from (proxmox url, CA or storage; imageFactory).
	CodeCredentialsDestination = "credentials.destination-changed"
	// CodeNoControlPlane is a cluster without a control-plane node.
	CodeNoControlPlane = "cluster.no-controlplane"
	// CodeKernelArgsIgnored is machine.install.extraKernelArgs that the upgrade API of
	// Talos 1.13 and later does not apply (GRUB without the UKI command line).
	CodeKernelArgsIgnored = "install.kernel-args-ignored"
	// CodeProxmoxVMDrift is an existing VM that differs from its node's proxmox: spec.
	CodeProxmoxVMDrift = "proxmox.vm-drift"
	// CodeProxmoxVMMissing is a node whose VM is not on its Proxmox node.
	CodeProxmoxVMMissing = "proxmox.vm-missing"
)

// Codes of the config layout's traps: a v1alpha1 field moved to a typed document
// (Talos 1.14), whether talops generated the documents or a patch wrote them.
const (
	// CodeV1Alpha1Conflict is a v1alpha1 field set next to the typed document that replaces it.
	CodeV1Alpha1Conflict = "contract.v1alpha1-conflict"
	// CodeControlPlaneLabel is a control plane's KubeNodeConfig without the control-plane
	// role label the v1alpha1 layout added by itself.
	CodeControlPlaneLabel = "contract.control-plane-label"
	// CodeControlPlaneTaint is a control plane's KubeNodeConfig without the NoSchedule taint
	// the v1alpha1 layout added by itself.
	CodeControlPlaneTaint = "contract.control-plane-taint"
	// CodeAPIServerAuthorizers is a KubeAPIServerConfig with no KubeAuthorizerConfig: no
	// Node and RBAC authorizers.
	CodeAPIServerAuthorizers = "contract.apiserver-authorizers"
	// CodeAPIServerAuthentication is a KubeAPIServerConfig with no KubeAuthenticationConfig.
	CodeAPIServerAuthentication = "contract.apiserver-authentication"
	// CodeAPIServerArg is a kube-apiserver extra argument the KubeAPIServerConfig refuses.
	CodeAPIServerArg = "contract.apiserver-arg"
	// CodeSearchDomainsCleared is a ResolverConfig whose empty search domain list clears the
	// ones DHCP or the platform gives.
	CodeSearchDomainsCleared = "contract.search-domains-cleared"
	// CodeEtcdKeyDropped is a KubeEtcdEncryptionConfig without a key etcd's data is
	// encrypted with.
	CodeEtcdKeyDropped = "contract.etcd-key-dropped"
)
