package plan

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/siderolabs/talos/pkg/machinery/config/configloader"
)

const (
	token      = "  token: abcdef.0123456789abcdef\n"
	otherToken = "  token: ghijkl.0123456789abcdef\n"
)

// configWith is a small worker config with extra lines at the top level (top), under
// machine and under cluster; each fragment is YAML at its section's indentation.
func configWith(top, machine, cluster string) string {
	return fmt.Sprintf(`version: v1alpha1
%smachine:
  type: worker
%scluster:
  controlPlane:
    endpoint: https://10.0.20.100:6443
%s`, top, machine, cluster)
}

// diff loads two config texts and finds what changed between them.
func diff(t *testing.T, from, to string) changes {
	t.Helper()

	old, err := configloader.NewFromBytes([]byte(from))
	if err != nil {
		t.Fatalf("old config: %v", err)
	}

	new, err := configloader.NewFromBytes([]byte(to))
	if err != nil {
		t.Fatalf("new config: %v", err)
	}

	oldData, newData, err := encodings(NodeState{Config: old}, NodeState{Config: new})
	if err != nil {
		t.Fatal(err)
	}

	ch, err := changedPaths(old, new, oldData, newData)
	if err != nil {
		t.Fatal(err)
	}

	// Without the encodings each document is encoded on its own: the changes are the same.
	if each, err := changedPaths(old, new, nil, nil); err != nil || !reflect.DeepEqual(each, ch) {
		t.Errorf("changes from the documents one by one: %+v, %v; from one decode: %+v", each, err, ch)
	}

	if len(ch.paths) == 0 && ch.otherDocs == 0 {
		t.Fatal("the two configs do not differ")
	}

	return ch
}

// predict runs the prediction for a change from one config text to another.
func predict(t *testing.T, talos, from, to string) (bool, []string) {
	t.Helper()

	return needsReboot(talos, diff(t, from, to))
}

type tableCase struct {
	name  string
	talos []string
	// section is where the fragments go: "", "machine" or "cluster".
	section    string
	from, to   string
	wantReboot bool
	wantReason string
}

func (tc tableCase) configs() (string, string) {
	build := func(fragment string) string {
		switch tc.section {
		case "machine":
			return configWith("", fragment, "")
		case "cluster":
			return configWith("", "", fragment)
		default:
			return configWith(fragment, "", "")
		}
	}

	return build(tc.from), build(tc.to)
}

func runTable(t *testing.T, cases []tableCase) {
	t.Helper()

	for _, tc := range cases {
		for _, talos := range tc.talos {
			t.Run(tc.name+" ("+talos+")", func(t *testing.T) {
				from, to := tc.configs()
				reboot, reasons := predict(t, talos, from, to)

				if reboot != tc.wantReboot || !slices.Contains(reasons, tc.wantReason) {
					t.Errorf("reboot %v %q, want %v with %q", reboot, reasons, tc.wantReboot, tc.wantReason)
				}
			})
		}
	}
}

var (
	upTo113 = []string{"v1.12.11", "v1.13.9"}
	from114 = []string{"v1.14.0-rc.1", "v1.14.1", "v1.15.0"}
)

func TestNeedsReboot_SysctlsAreLiveOnEveryRelease(t *testing.T) {
	runTable(t, []tableCase{{
		name: "a sysctl", talos: slices.Concat([]string{"v1.11.6"}, upTo113, from114), section: "machine",
		from: "  sysctls:\n    net.ipv4.ip_forward: \"1\"\n", to: "  sysctls:\n    net.ipv4.ip_forward: \"0\"\n",
		wantReason: "machine.sysctls changed: applied live",
	}})
}

func TestNeedsReboot_MachineFilesNeedARebootOnEveryRelease(t *testing.T) {
	files := "  files:\n    - path: /var/etc/motd\n      permissions: 0o644\n      op: create\n      content: hello\n"

	runTable(t, []tableCase{
		{
			name: "a file up to 1.13", talos: upTo113, section: "machine", to: files, wantReboot: true,
			wantReason: "machine.files changed: needs a reboot on Talos ≤ 1.13",
		},
		{
			name: "a file from 1.14", talos: from114, section: "machine", to: files, wantReboot: true,
			wantReason: "machine.files changed: Talos writes files only at boot, so the change takes effect after a reboot",
		},
	})
}

// Up to 1.13, Runtime.CanApplyImmediate decides: its fields are live, any other v1alpha1
// difference reboots the node.
func TestNeedsReboot_UpTo113CanApplyImmediateDecides(t *testing.T) {
	kubePrism := "  features:\n    kubePrism:\n      enabled: true\n      port: 7445\n"

	runTable(t, []tableCase{
		{
			name: "kubelet extra args are in the list", talos: upTo113, section: "machine",
			to:         "  kubelet:\n    extraArgs:\n      max-pods: \"250\"\n",
			wantReason: "machine.kubelet changed: applied live",
		},
		{
			name: "the cluster section is in the list, etcd included", talos: upTo113, section: "cluster",
			to:         "  etcd:\n    extraArgs:\n      election-timeout: \"5000\"\n",
			wantReason: "cluster.etcd changed: applied live",
		},
		{
			name: "a listed feature is live while both configs have features", talos: upTo113, section: "machine",
			from: kubePrism, to: kubePrism + "    hostDNS:\n      enabled: true\n",
			wantReason: "machine.features.hostDNS changed: applied live",
		},
		{
			name: "a listed feature reboots when the features section is new", talos: upTo113, section: "machine",
			to: "  features:\n    hostDNS:\n      enabled: true\n", wantReboot: true,
			wantReason: "machine.features.hostDNS changed: needs a reboot on Talos ≤ 1.13",
		},
		{
			name: "a feature out of the list reboots", talos: upTo113, section: "machine",
			from: kubePrism, to: kubePrism + "    diskQuotaSupport: true\n", wantReboot: true,
			wantReason: "machine.features.diskQuotaSupport changed: needs a reboot on Talos ≤ 1.13",
		},
		{
			name: "udev rules are out of the list", talos: upTo113, section: "machine",
			to: "  udev:\n    rules:\n      - SUBSYSTEM==\"drm\", GROUP=\"44\"\n", wantReboot: true,
			wantReason: "machine.udev changed: needs a reboot on Talos ≤ 1.13",
		},
		{
			name: "the machine token is out of the list", talos: upTo113, section: "machine",
			from: token, to: otherToken, wantReboot: true,
			wantReason: "machine.token changed: needs a reboot on Talos ≤ 1.13",
		},
		{
			name: "an installer waits for the next upgrade", talos: upTo113, section: "machine",
			to:         "  install:\n    image: ghcr.io/siderolabs/installer:v1.13.9\n",
			wantReason: "machine.install changed: takes effect with the next upgrade",
		},
	})
}

// From 1.14, ApplyConfiguration never reboots: a field is live only where a controller
// applies it, one case per cited group of the table.
func TestNeedsReboot_From114LiveOnlyWhereAControllerAppliesIt(t *testing.T) {
	kubePrism := "  features:\n    kubePrism:\n      enabled: true\n      port: 7445\n"
	feature := func(line string) (string, string) { return kubePrism, kubePrism + line }

	cases := []tableCase{
		{
			name: "a sysfs value (KernelParamConfigController)", section: "machine",
			to:         "  sysfs:\n    devices.system.cpu.cpu0.cpufreq.scaling_governor: performance\n",
			wantReason: "machine.sysfs changed: applied live",
		},
		{
			name: "an added kernel module (KernelModuleConfigController)", section: "machine",
			to:         "  kernel:\n    modules:\n      - name: br_netfilter\n",
			wantReason: "machine.kernel changed: applied live",
		},
		{
			name: "a removed kernel module is never unloaded", section: "machine",
			from: "  kernel:\n    modules:\n      - name: br_netfilter\n", wantReboot: true,
			wantReason: "machine.kernel.modules lost or changed a module: takes effect after a reboot",
		},
		{
			name: "kubelet extra args (KubeletConfigController, KubeletServiceController)", section: "machine",
			to:         "  kubelet:\n    extraArgs:\n      max-pods: \"250\"\n",
			wantReason: "machine.kubelet changed: applied live",
		},
		{
			name: "a static pod (StaticPodConfigController)", section: "machine",
			to:         "  pods:\n    - apiVersion: v1\n      kind: Pod\n      metadata:\n        name: nginx\n",
			wantReason: "machine.pods changed: applied live",
		},
		{
			name: "a node label (NodeLabelSpecController)", section: "machine",
			to:         "  nodeLabels:\n    tier: gpu\n",
			wantReason: "machine.nodeLabels changed: applied live",
		},
		{
			name: "a node taint (NodeTaintSpecController)", section: "machine",
			to:         "  nodeTaints:\n    gpu: \"true:NoSchedule\"\n",
			wantReason: "machine.nodeTaints changed: applied live",
		},
		{
			name: "control plane components (ControlPlaneControllerManagerController)", section: "machine",
			to:         "  controlPlane:\n    scheduler:\n      disabled: true\n",
			wantReason: "machine.controlPlane changed: applied live",
		},
		{
			name: "certificate SANs (RootOSController)", section: "machine",
			to:         "  certSANs:\n    - 10.0.20.1\n",
			wantReason: "machine.certSANs changed: applied live",
		},
		{
			name: "the hostname (network config controllers)", section: "machine",
			to:         "  network:\n    hostname: k8s-node9\n",
			wantReason: "machine.network changed: applied live",
		},
		{
			name: "time servers (TimeServerConfigController)", section: "machine",
			to:         "  time:\n    servers:\n      - time.cloudflare.com\n",
			wantReason: "machine.time changed: applied live",
		},
		{
			name: "a registry mirror (RegistriesConfigController, CRI restarted)", section: "machine",
			to:         "  registries:\n    mirrors:\n      docker.io:\n        endpoints:\n          - http://10.0.20.1:5000\n",
			wantReason: "machine.registries changed: applied live",
		},
		{
			name: "base runtime spec overrides (RuntimeSpecConfigController, CRI restarted)", section: "machine",
			to:         "  baseRuntimeSpecOverrides:\n    process:\n      rlimits:\n        - type: RLIMIT_NOFILE\n          hard: 1024\n          soft: 1024\n",
			wantReason: "machine.baseRuntimeSpecOverrides changed: applied live",
		},
		{
			name: "a seccomp profile (SeccompProfileController)", section: "machine",
			to:         "  seccompProfiles:\n    - name: audit.json\n      value:\n        defaultAction: SCMP_ACT_LOG\n",
			wantReason: "machine.seccompProfiles changed: applied live",
		},
		{
			name: "a log destination (machined's config watch)", section: "machine",
			to:         "  logging:\n    destinations:\n      - endpoint: udp://10.0.20.1:514\n        format: json_lines\n",
			wantReason: "machine.logging changed: applied live",
		},
		{
			name: "udev rules (UdevRulesController)", section: "machine",
			to:         "  udev:\n    rules:\n      - SUBSYSTEM==\"drm\", GROUP=\"44\"\n",
			wantReason: "machine.udev changed: applied live",
		},
		{
			name: "a user disk (UserDiskConfigController)", section: "machine",
			to:         "  disks:\n    - device: /dev/sdb\n      partitions:\n        - mountpoint: /var/mnt/extra\n",
			wantReason: "machine.disks changed: applied live",
		},
		{
			name: "the machine token (RootOSController)", section: "machine", from: token, to: otherToken,
			wantReason: "machine.token changed: applied live",
		},
		{
			name: "the API server (ControlPlaneAPIServerController)", section: "cluster",
			to:         "  apiServer:\n    extraArgs:\n      feature-gates: ServerSideApply=true\n",
			wantReason: "cluster.apiServer changed: applied live",
		},
		{
			name: "scheduling on control planes (NodeTaintSpecController)", section: "cluster",
			to:         "  allowSchedulingOnControlPlanes: true\n",
			wantReason: "cluster.allowSchedulingOnControlPlanes changed: applied live",
		},
		{
			name: "etcd takes its arguments when the service starts", section: "cluster",
			to: "  etcd:\n    extraArgs:\n      election-timeout: \"5000\"\n", wantReboot: true,
			wantReason: "cluster.etcd changed: takes effect after a reboot",
		},
		{
			name: "environment variables are set once per boot", section: "machine",
			to: "  env:\n    HTTP_PROXY: http://10.0.20.1:3128\n", wantReboot: true,
			wantReason: "machine.env changed: environment variables take effect after a reboot",
		},
		{
			name: "disk encryption is set up when the volume opens at boot", section: "machine",
			to: "  systemDiskEncryption:\n    ephemeral:\n      provider: luks2\n      keys:\n        - nodeID: {}\n          slot: 0\n", wantReboot: true,
			wantReason: "machine.systemDiskEncryption changed: volume encryption takes effect after a reboot",
		},
		{
			name: "debug is read when services start", to: "debug: true\n", wantReboot: true,
			wantReason: "debug changed: takes effect after a reboot",
		},
		{
			name: "an installer waits for the next upgrade", section: "machine",
			to:         "  install:\n    image: ghcr.io/siderolabs/installer:v1.14.1\n",
			wantReason: "machine.install changed: takes effect with the next upgrade",
		},
	}

	for _, f := range []struct{ name, line, want string }{
		{"host DNS (HostDNSConfigController)", "    hostDNS:\n      enabled: true\n", "machine.features.hostDNS changed: applied live"},
		{"Talos API access (kubeaccess ConfigController)", "    kubernetesTalosAPIAccess:\n      enabled: true\n      allowedRoles: [os:reader]\n      allowedKubernetesNamespaces: [kube-system]\n", "machine.features.kubernetesTalosAPIAccess changed: applied live"},
		{"the image cache (ImageCacheConfigController)", "    imageCache:\n      localEnabled: true\n", "machine.features.imageCache changed: applied live"},
		{"the address sort algorithm (NodeAddressSortAlgorithmController)", "    nodeAddressSortAlgorithm: v2\n", "machine.features.nodeAddressSortAlgorithm changed: applied live"},
		{"a stable hostname (HostnameConfigController)", "    stableHostname: true\n", "machine.features.stableHostname changed: applied live"},
	} {
		from, to := feature(f.line)
		cases = append(cases, tableCase{name: f.name, section: "machine", from: from, to: to, wantReason: f.want})
	}

	cases = append(cases, tableCase{
		name: "KubePrism (KubePrismConfigController)", section: "machine",
		from: kubePrism, to: strings.Replace(kubePrism, "7445", "7446", 1),
		wantReason: "machine.features.kubePrism changed: applied live",
	})

	from, to := feature("    diskQuotaSupport: true\n")
	cases = append(cases, tableCase{
		name: "disk quota support is a mount option of EPHEMERAL", section: "machine", from: from, to: to, wantReboot: true,
		wantReason: "machine.features.diskQuotaSupport changed: EPHEMERAL takes its mount options when it is mounted at boot, so the change takes effect after a reboot",
	})

	for i := range cases {
		cases[i].talos = from114
	}

	runTable(t, cases)
}

func TestNeedsReboot_FieldsNoRowNamesNeedAReboot(t *testing.T) {
	kubePrism := "  features:\n    kubePrism:\n      enabled: true\n      port: 7445\n"

	runTable(t, []tableCase{
		{
			name: "rbac, named by no row", talos: upTo113, section: "machine",
			from: kubePrism, to: kubePrism + "    rbac: true\n", wantReboot: true,
			wantReason: "machine.features.rbac changed: needs a reboot on Talos ≤ 1.13",
		},
		{
			name: "rbac, named by no row", talos: from114, section: "machine",
			from: kubePrism, to: kubePrism + "    rbac: true\n", wantReboot: true,
			wantReason: "machine.features.rbac changed: takes effect after a reboot",
		},
		{
			name: "a version that does not parse gets the newest table", talos: []string{"latest"}, section: "machine",
			to: "  env:\n    HTTP_PROXY: http://10.0.20.1:3128\n", wantReboot: true,
			wantReason: "machine.env changed: environment variables take effect after a reboot",
		},
	})
}

func TestNeedsReboot_From114SaysTalopsReboots(t *testing.T) {
	from, to := tableCase{section: "machine", to: "  env:\n    HTTP_PROXY: http://10.0.20.1:3128\n"}.configs()

	if _, reasons := predict(t, "v1.14.1", from, to); reasons[len(reasons)-1] != "Talos ≥ 1.14 never reboots on apply: talops reboots the node" {
		t.Errorf("reasons = %q", reasons)
	}

	if _, reasons := predict(t, "v1.13.9", from, to); slices.Contains(reasons, "Talos ≥ 1.14 never reboots on apply: talops reboots the node") {
		t.Errorf("reasons = %q", reasons)
	}
}

func TestNeedsReboot_DocumentsPerRelease(t *testing.T) {
	const (
		hostname     = "---\napiVersion: v1alpha1\nkind: HostnameConfig\nauto: \"off\"\nhostname: k8s-node9\n"
		otherHost    = "---\napiVersion: v1alpha1\nkind: HostnameConfig\nauto: \"off\"\nhostname: k8s-node8\n"
		module       = "---\napiVersion: v1alpha1\nkind: KernelModuleConfig\nname: br_netfilter\n"
		environment  = "---\napiVersion: v1alpha1\nkind: EnvironmentConfig\nvariables:\n  HTTP_PROXY: http://10.0.20.1:3128\n"
		volume       = "---\napiVersion: v1alpha1\nkind: UserVolumeConfig\nname: data\nprovisioning:\n  diskSelector:\n    match: \"!system_disk\"\n  maxSize: 10GiB\n"
		biggerVolume = "---\napiVersion: v1alpha1\nkind: UserVolumeConfig\nname: data\nprovisioning:\n  diskSelector:\n    match: \"!system_disk\"\n  maxSize: 20GiB\n"
	)

	base := configWith("", "", "")

	for _, tc := range []struct {
		name       string
		talos      []string
		from, to   string
		wantReboot bool
		wantReason string
	}{
		{
			name: "up to 1.13 Talos compares only the v1alpha1 document", talos: upTo113, from: hostname, to: otherHost,
			wantReason: "HostnameConfig changed: applied live",
		},
		{
			name: "up to 1.13 environment documents reach services started at boot only after a reboot", talos: upTo113, to: environment, wantReboot: true,
			wantReason: "EnvironmentConfig added: takes effect after a reboot",
		},
		{
			name: "up to 1.13 a provisioned user volume is not changed in place", talos: upTo113, from: volume, to: biggerVolume, wantReboot: true,
			wantReason: "UserVolumeConfig data changed: volume changes (such as encryption keys) take effect after a reboot",
		},
		{
			name: "a hostname document (HostnameConfigController)", talos: from114, from: hostname, to: otherHost,
			wantReason: "HostnameConfig changed: applied live",
		},
		{
			name: "an added kernel module document (KernelModuleConfigController)", talos: from114, to: module,
			wantReason: "KernelModuleConfig br_netfilter added: applied live",
		},
		{
			name: "a removed kernel module document is never unloaded", talos: from114, from: module, wantReboot: true,
			wantReason: "KernelModuleConfig br_netfilter removed: takes effect after a reboot",
		},
		{
			name: "environment documents reach services started at boot only after a reboot", talos: from114, to: environment, wantReboot: true,
			wantReason: "EnvironmentConfig added: takes effect after a reboot",
		},
		{
			name: "a new user volume is provisioned live (VolumeConfigController)", talos: from114, to: volume,
			wantReason: "UserVolumeConfig data added: applied live",
		},
		{
			name: "a provisioned user volume is not changed in place", talos: from114, from: volume, to: biggerVolume, wantReboot: true,
			wantReason: "UserVolumeConfig data changed: volume changes (such as encryption keys) take effect after a reboot",
		},
	} {
		for _, talos := range tc.talos {
			t.Run(tc.name+" ("+talos+")", func(t *testing.T) {
				reboot, reasons := predict(t, talos, base+tc.from, base+tc.to)

				if reboot != tc.wantReboot || !slices.Contains(reasons, tc.wantReason) {
					t.Errorf("reboot %v %q, want %v with %q", reboot, reasons, tc.wantReboot, tc.wantReason)
				}
			})
		}
	}
}

func TestNeedsReboot_DocumentKindsNoRowNames(t *testing.T) {
	for _, tc := range []struct {
		talos      string
		wantReboot bool
		wantReason string
	}{
		{"v1.13.9", false, "FutureConfig added: applied live"},
		{"v1.14.1", true, "FutureConfig added: takes effect after a reboot"},
	} {
		reboot, reasons := needsReboot(tc.talos, changes{docKinds: []docChange{{kind: "FutureConfig", how: "added"}}})

		if reboot != tc.wantReboot || !slices.Contains(reasons, tc.wantReason) {
			t.Errorf("%s: reboot %v %q, want %v with %q", tc.talos, reboot, reasons, tc.wantReboot, tc.wantReason)
		}
	}
}
