package rules

import (
	"slices"
	"strings"
	"testing"

	"github.com/siderolabs/talos/pkg/machinery/config/validation"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/yamlpos"
)

// Each pair of a typed document and a v1alpha1 field machinery v1.14 refuses together: the
// message machinery gives, and the field v1alpha1Conflicts places it at. A row per
// message: a machinery bump that moves a pair, or adds one, fails here.
func TestV1Alpha1Conflicts_EveryPairMachineryRefusesIsPlacedAtTheField(t *testing.T) {
	covered := map[string]bool{}

	for _, tc := range []struct {
		doc, v1alpha1, field, machinery string
	}{
		{"kind: UnattendedInstallConfig", "machine:\n  install:\n    disk: /dev/sda", "machine.install", "UnattendedInstallConfig config is incompatible with v1alpha1 config (.machine.install)"},
		{"kind: KubeletConfig", "machine:\n  kubelet:\n    image: kubelet", "machine.kubelet", "kubelet config is already set in v1alpha1 config (.machine.kubelet)"},
		{"kind: KubeCredentialProviderConfig", "machine:\n  kubelet:\n    image: kubelet", "machine.kubelet", "cannot use KubeCredentialProviderConfig with legacy kubelet configuration (.machine.kubelet)"},
		{"kind: KubeNodeConfig", "cluster:\n  allowSchedulingOnControlPlanes: true", "cluster.allowSchedulingOnControlPlanes", ".cluster.allowSchedulingOnControlPlanes is already set in v1alpha1 config"},
		{"kind: KubeNodeConfig", "cluster:\n  allowSchedulingOnMasters: true", "cluster.allowSchedulingOnMasters", ".cluster.allowSchedulingOnMasters is already set in v1alpha1 config"},
		{"kind: KubeNodeConfig", "machine:\n  kubelet:\n    skipNodeRegistration: true", "machine.kubelet.skipNodeRegistration", ".machine.kubelet.skipNodeRegistration is already set in v1alpha1 config"},
		{"kind: KubeNodeConfig", "machine:\n  kubelet:\n    registerWithFQDN: true", "machine.kubelet.registerWithFQDN", ".machine.kubelet.registerWithFQDN is already set in v1alpha1 config"},
		{"kind: KubeNodeConfig", "machine:\n  kubelet:\n    nodeIP:\n      validSubnets: [10.0.0.0/8]", "machine.kubelet.nodeIP", ".machine.kubelet.nodeIP is already set in v1alpha1 config"},
		{"kind: KubeNodeConfig", "machine:\n  nodeLabels:\n    a: b", "machine.nodeLabels", ".machine.nodeLabels is already set in v1alpha1 config"},
		{"kind: KubeNodeConfig", "machine:\n  nodeAnnotations:\n    a: b", "machine.nodeAnnotations", ".machine.nodeAnnotations is already set in v1alpha1 config"},
		{"kind: KubeNodeConfig", "machine:\n  nodeTaints:\n    a: NoSchedule", "machine.nodeTaints", ".machine.nodeTaints is already set in v1alpha1 config"},
		{"kind: KubeCoreDNSConfig", "cluster:\n  coreDNS:\n    disabled: true", "cluster.coreDNS", "CoreDNS config is already set in v1alpha1 config (.cluster.coreDNS)"},
		{"kind: KubeControllerManagerConfig", "cluster:\n  controllerManager:\n    image: kcm", "cluster.controllerManager", "kube-controller-manager config is already set in v1alpha1 config (.cluster.controllerManager)"},
		{"kind: KubeControllerManagerConfig", "machine:\n  controlPlane:\n    controllerManager:\n      disabled: false", "machine.controlPlane.controllerManager", "kube-controller-manager config is already set in v1alpha1 config (.machine.controlplane.controllerManager)"},
		{"kind: KubeSchedulerConfig", "cluster:\n  scheduler:\n    image: sched", "cluster.scheduler", "kube-scheduler config is already set in v1alpha1 config (.cluster.scheduler)"},
		{"kind: KubeSchedulerConfig", "machine:\n  controlPlane:\n    scheduler:\n      disabled: false", "machine.controlPlane.scheduler", "kube-scheduler config is already set in v1alpha1 config (.machine.controlplane.scheduler)"},
		{"kind: KubeProxyConfig", "cluster:\n  proxy:\n    disabled: true", "cluster.proxy", "cluster proxy config in v1alpha1 config (.machine.cluster.proxy) can't be used with KubeProxyConfig document, please remove it to avoid conflicts"},
		{"kind: KubeAPIServerConfig", "cluster:\n  apiServer:\n    image: apiserver", "cluster.apiServer", "kube-apiserver config is already set in v1alpha1 config (.cluster.apiServer)"},
		{"kind: KubeAPIServerConfig", "cluster:\n  controlPlane:\n    localAPIServerPort: 6443", "cluster.controlPlane.localAPIServerPort", "kube-apiserver API port is already set in v1alpha1 config (.cluster.controlPlane.localAPIServerPort)"},
		{"kind: KubeAPIServerCAConfig", "cluster:\n  ca:\n    crt: \"\"", "cluster.ca", "kube-apiserver CA is already set in v1alpha1 config (.cluster.ca)"},
		{"kind: KubeAggregatorCAConfig", "cluster:\n  aggregatorCA:\n    crt: \"\"", "cluster.aggregatorCA", "kube-apiserver aggregator CA is already set in v1alpha1 config (.cluster.aggregatorCA), please remove it and use the new KubeAggregatorCAConfig document instead"},
		{"kind: KubeServiceAccountConfig", "cluster:\n  serviceAccount:\n    key: \"\"", "cluster.serviceAccount", "service account is already set in v1alpha1 config (.cluster.serviceAccount)"},
		{"kind: KubeAuditPolicyConfig", "cluster:\n  apiServer:\n    auditPolicy:\n      kind: Policy", "cluster.apiServer.auditPolicy", "audit policy config is already set in v1alpha1 config"},
		{"kind: KubeAdmissionControlConfig", "cluster:\n  apiServer:\n    admissionControl:\n      - name: PodSecurity\n        configuration: {}", "cluster.apiServer.admissionControl", "admission control plugin config is already set in v1alpha1 config"},
		{"kind: KubeAuthorizerConfig\nname: node\ntype: Node", "cluster:\n  apiServer:\n    admissionControl:\n      - name: PodSecurity\n        configuration: {}", "cluster.apiServer.admissionControl", "admission control plugin config is already set in v1alpha1 config"},
		{"kind: KubeEtcdEncryptionConfig", "cluster:\n  secretboxEncryptionSecret: not-a-key", "cluster.secretboxEncryptionSecret", "etcd encryption config is already set in v1alpha1 config"},
		{"kind: KubeEtcdEncryptionConfig", "cluster:\n  aescbcEncryptionSecret: not-a-key", "cluster.aescbcEncryptionSecret", "etcd encryption config is already set in v1alpha1 config"},
		{"kind: KubeClusterConfig", "cluster:\n  clusterName: lab", "cluster.clusterName", "cluster name is already set in the v1alpha1 config (.cluster.clusterName). Please remove it and use only the new KubeClusterConfig document to avoid conflicts"},
		{"kind: KubeClusterConfig", "cluster:\n  controlPlane:\n    endpoint: https://10.0.0.1:6443", "cluster.controlPlane.endpoint", "cluster endpoint is already set in the v1alpha1 config (.cluster.controlPlane.endpoint). Please remove it and use only the new KubeClusterConfig document to avoid conflicts"},
		{"kind: KubeNetworkConfig", "cluster:\n  network:\n    dnsDomain: cluster.local", "cluster.network", "cluster network config is already set in the v1alpha1 config (.machine.cluster.network). Please remove it and use only the new KubeNetworkConfig document to avoid conflicts"},
		{"kind: KubeFlannelCNIConfig", "cluster:\n  network:\n    dnsDomain: cluster.local", "cluster.network", "cluster network config in v1alpha1 config (.machine.cluster.network) can't be used with KubeFlannelCNIConfig document, please remove it to avoid conflicts"},
		{"kind: KubePrismConfig", "machine:\n  features:\n    kubePrism:\n      enabled: true", "machine.features.kubePrism", "KubePrism config in v1alpha1 config (.machine.features.kubePrism) can't be used with KubePrismConfig document, please remove it to avoid conflicts"},
		{"kind: KubeTalosAPIAccessConfig", "machine:\n  features:\n    kubernetesTalosAPIAccess:\n      enabled: true", "machine.features.kubernetesTalosAPIAccess", ".machine.features.kubernetesTalosAPIAccess is already set in v1alpha1 config"},
		{"kind: ResolverConfig", "machine:\n  network:\n    searchDomains: [example.org]", "machine.network.searchDomains", ".machine.network.searchDomains is already set in v1alpha1 config"},
		{"kind: ResolverConfig", "machine:\n  network:\n    nameservers: [10.0.0.1]", "machine.network.nameservers", ".machine.network.nameservers is already set in v1alpha1 config"},
		{"kind: ResolverConfig", "machine:\n  network:\n    disableSearchDomain: true", "machine.network.disableSearchDomain", ".machine.network.disableSearchDomain is already set in v1alpha1 config"},
		{"kind: ResolverConfig\nhostDNS:\n  enabled: true", "machine:\n  features:\n    hostDNS:\n      enabled: true", "machine.features.hostDNS", ".machine.features.hostDNS is already set in v1alpha1 config"},
		{"kind: HostnameConfig\nhostname: node", "machine:\n  network:\n    hostname: node", "machine.network.hostname", "static hostname is already set in v1alpha1 config"},
		{"kind: HostnameConfig\nhostname: node", "machine:\n  features:\n    stableHostname: true", "machine.features.stableHostname", "stable hostname is already set in v1alpha1 config"},
		{"kind: TimeSyncConfig", "machine:\n  time:\n    disabled: true", "machine.time.disabled", "time sync cannot be disabled in both v1alpha1 and new-style configuration"},
		{"kind: TimeSyncConfig", "machine:\n  time:\n    servers: [10.0.0.1]", "machine.time.servers", "time servers cannot be specified in both v1alpha1 and new-style configuration"},
		{"kind: TimeSyncConfig", "machine:\n  time:\n    bootTimeout: 1m", "machine.time.bootTimeout", "boot timeout cannot be specified in both v1alpha1 and new-style configuration"},
		{"kind: KubeSpanConfig", "machine:\n  network:\n    kubespan:\n      enabled: true", "machine.network.kubespan", "kubespan is already configured in v1alpha1 machine.network.kubespan"},
		{"kind: VolumeConfig\nname: STATE\nencryption:\n  provider: luks2\n  keys:\n    - slot: 0\n      tpm: {}", "machine:\n  systemDiskEncryption:\n    state:\n      provider: luks2\n      keys:\n        - slot: 0\n          tpm: {}", "machine.systemDiskEncryption.state", `system disk encryption for "STATE" is configured in both v1alpha1.Config and VolumeConfig`},
		{"kind: VolumeConfig\nname: EPHEMERAL\nencryption:\n  provider: luks2\n  keys:\n    - slot: 0\n      tpm: {}", "machine:\n  systemDiskEncryption:\n    ephemeral:\n      provider: luks2\n      keys:\n        - slot: 0\n          tpm: {}", "machine.systemDiskEncryption.ephemeral", `system disk encryption for "EPHEMERAL" is configured in both v1alpha1.Config and VolumeConfig`},
		{"kind: CRIBaseRuntimeSpecConfig\noverrides:\n  process: {}", "machine:\n  baseRuntimeSpecOverrides:\n    process: {}", "machine.baseRuntimeSpecOverrides", "base runtime spec overrides are already set in v1alpha1 config"},
		{"kind: ImageCacheConfig", "machine:\n  features:\n    imageCache:\n      localEnabled: true", "machine.features.imageCache", "image cache config is already set in v1alpha1 config"},
		{"kind: DiscoveryIdentityConfig", "cluster:\n  id: not-an-id", "cluster.id", "cluster identity is already configured in .cluster.id/.cluster.secret of the v1alpha1 config"},
		{"kind: DiscoveryIdentityConfig", "cluster:\n  secret: not-a-secret", "cluster.secret", "cluster identity is already configured in .cluster.id/.cluster.secret of the v1alpha1 config"},
		{"kind: DiscoveryServiceConfig", "cluster:\n  discovery:\n    enabled: true", "cluster.discovery", "discovery service is already configured in .cluster.discovery of the v1alpha1 config"},
	} {
		kind, _, _ := strings.Cut(strings.TrimPrefix(tc.doc, "kind: "), "\n")
		covered[kind+" "+tc.field] = true

		t.Run(kind+" "+tc.field, func(t *testing.T) {
			if !slices.Contains(v1alpha1Fields[kind], tc.field) {
				t.Fatalf("v1alpha1Fields[%s] = %v, want %s in it", kind, v1alpha1Fields[kind], tc.field)
			}

			data := "version: v1alpha1\n" + tc.v1alpha1 + "\n---\napiVersion: v1alpha1\n" + tc.doc + "\n"

			cfg, ix, err := render.LoadConfig("config.yaml", []byte(data))
			if err != nil {
				t.Fatalf("load:\n%s\n%v", data, err)
			}

			_, verr := cfg.ValidateAsClient(ModeCloud, validation.WithLocal())

			msgs := flattenMulti(verr)

			n := &render.Machine{
				Node:   cluster.Node{Name: "cp", Role: cluster.RoleControlPlane},
				Config: cfg,
				Layers: []render.Layer{{File: "config.yaml", Index: ix}},
			}

			cs := v1alpha1Conflicts(&Input{}, n)
			if len(cs) != 1 {
				t.Fatalf("want one conflict, got %+v\nmachinery: %q", cs, msgs)
			}

			c := cs[0]
			if c.machinery != yamlpos.WithoutValues(tc.machinery) || !slices.Contains(msgs, tc.machinery) {
				t.Errorf("machinery says %q, the conflict stands for %q, want %q", msgs, c.machinery, tc.machinery)
			}

			leaf := tc.field[strings.LastIndex(tc.field, ".")+1:] + ":"
			line := 1 + slices.IndexFunc(strings.Split(data, "\n"), func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), leaf) })

			if c.Code != CodeV1Alpha1Conflict || c.Path != tc.field || c.File != "config.yaml" || c.Line != line {
				t.Errorf("finding = %+v, want %s at config.yaml:%d", c.Finding, tc.field, line)
			}

			if want := "remove ." + tc.field + " from config.yaml:"; !strings.Contains(c.Message, want) || !strings.Contains(c.Message, "its settings belong in the "+kind+" document at config.yaml:") {
				t.Errorf("message = %s", c.Message)
			}

			var fs []finding.Finding
			for _, m := range msgs {
				fs = append(fs, finding.Finding{Code: CodeConfigInvalid, Message: yamlpos.WithoutValues(m)})
			}

			for _, f := range replacedBy(fs, cs) {
				if f.Message == c.machinery {
					t.Errorf("machinery's message is still reported: %s", f.Message)
				}
			}
		})
	}

	// Every field of the table has its row.
	for kind, fields := range v1alpha1Fields {
		for _, f := range fields {
			if !covered[kind+" "+f] {
				t.Errorf("no row for %s next to .%s", kind, f)
			}
		}
	}
}
