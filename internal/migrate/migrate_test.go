package migrate_test

import (
	"flag"
	"strings"
	"testing"

	"github.com/talops/talops/internal/migrate"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// field migrates one patch from a repository already at the target contract, so that only
// the field moves show (no old default is kept).
func field(t *testing.T, patch string, controlPlanes, workers int) (string, *migrate.Result) {
	t.Helper()

	res, err := migrate.Rewrite(migrate.Input{
		From: "v1.14", Target: "v1.14", Talops: []byte("configVersion: v1.14\n"),
		Patches: []migrate.Patch{{Path: "p.yaml", Data: []byte(patch), ControlPlanes: controlPlanes, Workers: workers}},
	})
	if err != nil {
		t.Fatal(err)
	}

	for _, f := range res.Files {
		if f.Path == "p.yaml" {
			return string(f.Data), res
		}
	}

	return patch, res
}

func TestRewrite_MovesEachFieldToItsDocument(t *testing.T) {
	t.Parallel()

	cases := []struct {
		name, patch, want, moved string
		controlPlanes, workers   int
	}{
		{
			name:  "install becomes UnattendedInstallConfig",
			patch: "machine:\n  install:\n    disk: /dev/nvme0n1\n    image: factory.talos.dev/metal-installer/abc:v1.14.7\n    wipe: true\n",
			want: "apiVersion: v1alpha1\nkind: UnattendedInstallConfig\ninstaller:\n  image: factory.talos.dev/metal-installer/abc:v1.14.7\nprovisioning:\n" +
				"  diskSelector:\n    match: disk.dev_path == \"/dev/nvme0n1\"\n  wipe: true\n",
			moved: "machine.install→UnattendedInstallConfig",
		},
		{
			name:  "kubelet becomes KubeletConfig and its node IP KubeNodeConfig",
			patch: "machine:\n  kubelet:\n    extraArgs:\n      rotate-server-certificates: \"true\"\n    nodeIP:\n      validSubnets: [10.0.20.0/24]\n",
			want: "apiVersion: v1alpha1\nkind: KubeletConfig\nextraArgs:\n  rotate-server-certificates: \"true\"\n---\n" +
				"apiVersion: v1alpha1\nkind: KubeNodeConfig\nnodeIP:\n  validSubnets: [10.0.20.0/24]\n",
			moved:   "machine.kubelet.extraArgs→KubeletConfig machine.kubelet.nodeIP→KubeNodeConfig",
			workers: 1,
		},
		{
			name:  "labels and taints on a worker become KubeNodeConfig",
			patch: "machine:\n  nodeLabels:\n    gpu: \"true\"\n  nodeTaints:\n    nvidia.com/gpu: \"true:NoSchedule\"\n",
			want:  "apiVersion: v1alpha1\nkind: KubeNodeConfig\nlabels:\n  gpu: \"true\"\ntaints:\n  nvidia.com/gpu: \"true:NoSchedule\"\n",
			moved: "machine.nodeLabels→KubeNodeConfig machine.nodeTaints→KubeNodeConfig", workers: 1,
		},
		{
			name:  "labels on control planes keep the control-plane label and taint explicitly",
			patch: "machine:\n  nodeLabels:\n    zone: a\n",
			want: "apiVersion: v1alpha1\nkind: KubeNodeConfig\nlabels:\n  node-role.kubernetes.io/control-plane: \"\"\n  zone: a\n" +
				"taints:\n  node-role.kubernetes.io/control-plane: NoSchedule\n",
			moved: "machine.nodeLabels→KubeNodeConfig", controlPlanes: 1,
		},
		{
			name:  "apiServer flags and SANs become KubeAPIServerConfig, OIDC flags KubeAuthenticationConfig",
			patch: "cluster:\n  apiServer:\n    certSANs: [k8s.example]\n    extraArgs:\n      feature-gates: Foo=true\n      oidc-issuer-url: https://id.example\n      oidc-client-id: k8s\n      oidc-username-claim: email\n",
			want: "apiVersion: v1alpha1\nkind: KubeAPIServerConfig\ncertExtraSANs: [k8s.example]\nextraArgs:\n  feature-gates: Foo=true\n---\n" +
				"apiVersion: v1alpha1\nkind: KubeAuthenticationConfig\n" +
				"# From the apiServer's flags, as kube-apiserver itself converts them: anonymous requests on\n" +
				"# every path, and a username without a prefix flag prefixed with the issuer URL and #\n# (unless its claim is email).\n" +
				"configuration:\n  anonymous:\n    enabled: true\n  jwt:\n    - claimMappings:\n        username:\n          claim: email\n          prefix: \"\"\n" +
				"      issuer:\n        audiences:\n          - k8s\n        url: https://id.example\n",
			moved: "cluster.apiServer→KubeAPIServerConfig cluster.apiServer.extraArgs.oidc-*→KubeAuthenticationConfig", controlPlanes: 1,
		},
		{
			name:  "authorizers become KubeAuthorizerConfig documents",
			patch: "cluster:\n  apiServer:\n    authorizationConfig:\n      - type: Webhook\n        name: webhook\n        webhook:\n          timeout: 3s\n",
			want:  "apiVersion: v1alpha1\nkind: KubeAuthorizerConfig\nname: webhook\ntype: Webhook\nwebhook:\n  timeout: 3s\n",
			moved: "cluster.apiServer.authorizationConfig→KubeAuthorizerConfig", controlPlanes: 1,
		},
		{
			name:  "audit policy becomes KubeAuditPolicyConfig",
			patch: "cluster:\n  apiServer:\n    auditPolicy:\n      apiVersion: audit.k8s.io/v1\n      kind: Policy\n      rules:\n        - level: Metadata\n",
			want:  "apiVersion: v1alpha1\nkind: KubeAuditPolicyConfig\nconfiguration:\n  apiVersion: audit.k8s.io/v1\n  kind: Policy\n  rules:\n    - level: Metadata\n",
			moved: "cluster.apiServer.auditPolicy→KubeAuditPolicyConfig", controlPlanes: 1,
		},
		{
			name:  "hostname becomes HostnameConfig",
			patch: "machine:\n  network:\n    hostname: k8s-node9\n",
			want:  "apiVersion: v1alpha1\nkind: HostnameConfig\nauto: \"off\"\nhostname: k8s-node9\n",
			moved: "machine.network.hostname→HostnameConfig", workers: 1,
		},
		{
			name:  "resolvers become ResolverConfig and an empty search list is not written",
			patch: "machine:\n  network:\n    nameservers: [10.0.20.1, 1.1.1.1]\n    searchDomains: []\n",
			want:  "apiVersion: v1alpha1\nkind: ResolverConfig\nnameservers:\n  - address: 10.0.20.1\n  - address: 1.1.1.1\n",
			moved: "machine.network.nameservers→ResolverConfig machine.network.searchDomains→(dropped: an empty list adds nothing)", workers: 1,
		},
		{
			name:  "search domains become ResolverConfig",
			patch: "machine:\n  network:\n    searchDomains: [lab.example]\n    disableSearchDomain: true\n",
			want:  "apiVersion: v1alpha1\nkind: ResolverConfig\nsearchDomains:\n  domains: [lab.example]\n  disableDefault: true\n",
			moved: "machine.network.searchDomains→ResolverConfig machine.network.disableSearchDomain→ResolverConfig", workers: 1,
		},
		{
			name:  "host DNS becomes ResolverConfig",
			patch: "machine:\n  features:\n    hostDNS:\n      enabled: true\n      forwardKubeDNSToHost: true\n",
			want:  "apiVersion: v1alpha1\nkind: ResolverConfig\nhostDNS:\n  enabled: true\n  forwardKubeDNSToHost: true\n",
			moved: "machine.features.hostDNS→ResolverConfig", workers: 1,
		},
		{
			name:  "an install disk selector becomes the CEL expression Talos matches it with",
			patch: "machine:\n  install:\n    diskSelector:\n      size: '>= 100GB'\n      type: nvme\n",
			want: "apiVersion: v1alpha1\nkind: UnattendedInstallConfig\nprovisioning:\n  diskSelector:\n" +
				"    match: disk.size >= 100000000000u && disk.transport != \"\" && disk.transport ==\n      \"nvme\" && !disk.readonly && !disk.cdrom\n  wipe: false\n",
			moved: "machine.install→UnattendedInstallConfig", workers: 1,
		},
		{
			name: "an RFC 6902 patch of the install disk selector (a talhelper import's) becomes UnattendedInstallConfig",
			patch: "- op: add\n  path: /machine/install/diskSelector\n  value:\n    model: Samsung SSD 980*\n" +
				"- op: remove\n  path: /machine/install/disk\n",
			want: "apiVersion: v1alpha1\nkind: UnattendedInstallConfig\nprovisioning:\n  diskSelector:\n" +
				"    match: glob(\"Samsung SSD 980*\", disk.model) && disk.transport != \"\" && !disk.readonly\n      && !disk.cdrom\n  wipe: false\n",
			moved: "(RFC 6902 patch)→a strategic-merge patch machine.install→UnattendedInstallConfig", workers: 1,
		},
		{
			name:  "an RFC 6902 patch of labels becomes KubeNodeConfig",
			patch: "- op: add\n  path: /machine/nodeLabels/topology.kubernetes.io~1zone\n  value: a\n",
			want:  "apiVersion: v1alpha1\nkind: KubeNodeConfig\nlabels:\n  topology.kubernetes.io/zone: a\n",
			moved: "(RFC 6902 patch)→a strategic-merge patch machine.nodeLabels→KubeNodeConfig", workers: 1,
		},
		{
			name:  "discovery turned off deletes the generated DiscoveryServiceConfig",
			patch: "cluster:\n  discovery:\n    enabled: false\n",
			want:  "apiVersion: v1alpha1\nkind: DiscoveryServiceConfig\nname: default\n$patch: delete\n",
			moved: "cluster.discovery→DiscoveryServiceConfig", workers: 1,
		},
		{
			name:  "a discovery service endpoint becomes DiscoveryServiceConfig's",
			patch: "cluster:\n  discovery:\n    enabled: true\n    registries:\n      kubernetes:\n        disabled: true\n      service:\n        endpoint: https://discovery.lab.internal/\n",
			want:  "apiVersion: v1alpha1\nkind: DiscoveryServiceConfig\nname: default\nendpoint: https://discovery.lab.internal/\n",
			moved: "cluster.discovery→DiscoveryServiceConfig", workers: 1,
		},
		{
			name:  "the cluster network becomes KubeNetworkConfig",
			patch: "cluster:\n  network:\n    dnsDomain: lab.internal\n    podSubnets: [10.200.0.0/16]\n    serviceSubnets: [10.201.0.0/16]\n",
			want:  "apiVersion: v1alpha1\nkind: KubeNetworkConfig\ndnsDomain: lab.internal\npodSubnets: [10.200.0.0/16]\nserviceSubnets: [10.201.0.0/16]\n",
			moved: "cluster.network→KubeNetworkConfig", workers: 1,
		},
		{
			name:  "no CNI deletes the control planes' KubeFlannelCNIConfig",
			patch: "cluster:\n  network:\n    cni:\n      name: none\n",
			want:  "apiVersion: v1alpha1\nkind: KubeFlannelCNIConfig\n$patch: delete\n",
			moved: "cluster.network.cni→KubeFlannelCNIConfig", controlPlanes: 1,
		},
		{
			name:  "flannel's arguments become KubeFlannelCNIConfig's",
			patch: "cluster:\n  network:\n    cni:\n      name: flannel\n      flannel:\n        extraArgs: [--iface-can-reach=192.168.1.1]\n",
			want:  "apiVersion: v1alpha1\nkind: KubeFlannelCNIConfig\nextraArgs: [--iface-can-reach=192.168.1.1]\n",
			moved: "cluster.network.cni→KubeFlannelCNIConfig", controlPlanes: 1,
		},
		{
			name:  "admission control deleted deletes the generated PodSecurity document",
			patch: "cluster:\n  apiServer:\n    admissionControl:\n      $patch: delete\n",
			want:  "apiVersion: v1alpha1\nkind: KubeAdmissionControlConfig\nname: PodSecurity\n$patch: delete\n",
			moved: "cluster.apiServer.admissionControl→KubeAdmissionControlConfig", controlPlanes: 1,
		},
		{
			name:  "an admission plugin becomes its KubeAdmissionControlConfig",
			patch: "cluster:\n  apiServer:\n    admissionControl:\n      - name: PodSecurity\n        configuration:\n          exemptions:\n            namespaces: [kube-system, storage]\n",
			want:  "apiVersion: v1alpha1\nkind: KubeAdmissionControlConfig\nname: PodSecurity\nconfiguration:\n  exemptions:\n    namespaces: [kube-system, storage]\n",
			moved: "cluster.apiServer.admissionControl→KubeAdmissionControlConfig", controlPlanes: 1,
		},
		{
			name:  "coreDNS becomes KubeCoreDNSConfig, disabled its enabled",
			patch: "cluster:\n  coreDNS:\n    # Cilium brings its own.\n    disabled: true\n",
			want:  "apiVersion: v1alpha1\nkind: KubeCoreDNSConfig\n# Cilium brings its own.\nenabled: false\n",
			moved: "cluster.coreDNS→KubeCoreDNSConfig", controlPlanes: 1,
		},
		{
			name:  "proxy becomes KubeProxyConfig",
			patch: "cluster:\n  proxy:\n    mode: ipvs\n    extraArgs:\n      metrics-bind-address: 0.0.0.0:10249\n",
			want:  "apiVersion: v1alpha1\nkind: KubeProxyConfig\nmode: ipvs\nextraArgs:\n  metrics-bind-address: 0.0.0.0:10249\n",
			moved: "cluster.proxy→KubeProxyConfig", controlPlanes: 1,
		},
		{
			name:  "controllerManager and scheduler become their documents",
			patch: "cluster:\n  controllerManager:\n    extraArgs:\n      bind-address: 0.0.0.0\n  scheduler:\n    extraArgs:\n      bind-address: 0.0.0.0\n",
			want: "apiVersion: v1alpha1\nkind: KubeControllerManagerConfig\nextraArgs:\n  bind-address: 0.0.0.0\n---\n" +
				"apiVersion: v1alpha1\nkind: KubeSchedulerConfig\nextraArgs:\n  bind-address: 0.0.0.0\n",
			moved: "cluster.controllerManager→KubeControllerManagerConfig cluster.scheduler→KubeSchedulerConfig", controlPlanes: 1,
		},
	}

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			got, res := field(t, tc.patch, tc.controlPlanes, tc.workers)
			if got != tc.want {
				t.Errorf("rewritten patch:\n%s\nwant:\n%s", got, tc.want)
			}

			var moved []string
			for _, m := range res.Moved {
				moved = append(moved, m.From+"→"+m.To)
			}

			if strings.Join(moved, " ") != tc.moved {
				t.Errorf("moved %q, want %q", strings.Join(moved, " "), tc.moved)
			}

			if len(res.Left) > 0 {
				t.Errorf("left %+v, want nothing", res.Left)
			}
		})
	}
}
