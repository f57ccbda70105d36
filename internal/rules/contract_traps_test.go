package rules_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/rules"
	"github.com/talops/talops/internal/testlab"
)

// layoutCodes are the codes of the config layout's traps, and machinery's own, which the
// traps replace or sit next to.
var layoutCodes = []string{
	rules.CodeV1Alpha1Conflict, rules.CodeControlPlaneLabel, rules.CodeControlPlaneTaint,
	rules.CodeAPIServerAuthorizers, rules.CodeAPIServerAuthentication, rules.CodeAPIServerArg,
	rules.CodeSearchDomainsCleared, rules.CodeEtcdKeyDropped, rules.CodeConfigInvalid, rules.CodeConfigWarning,
}

// migratedLab is the reference lab moved by hand to the v1.14 layout: configVersion
// unpinned, every v1alpha1 field the layout moved written as its document.
func migratedLab(t *testing.T) cluster.MapFiles {
	t.Helper()

	files := testlab.Files(t)
	testlab.Unpin(t, files)
	testlab.Edit(t, files, "patches/common.yaml", "  features:\n    hostDNS:\n      enabled: true\n      forwardKubeDNSToHost: true\n",
		"---\napiVersion: v1alpha1\nkind: ResolverConfig\nhostDNS:\n  enabled: true\n  forwardKubeDNSToHost: true\n")
	files["patches/controlplane.yaml"] = []byte("# The audit policy.\napiVersion: v1alpha1\nkind: KubeAuditPolicyConfig\nconfiguration:\n  apiVersion: audit.k8s.io/v1\n  kind: Policy\n  rules:\n    - level: Metadata\n")
	files["patches/worker.yaml"] = []byte("apiVersion: v1alpha1\nkind: KubeNodeConfig\nlabels:\n  node-role.kubernetes.io/worker: \"\"\n")
	testlab.Edit(t, files, "nodes/k8s-node1.yaml", "  nodeLabels:\n    gpu: \"true\"\n  nodeTaints:\n    nvidia.com/gpu: \"true:NoSchedule\"\n",
		"---\napiVersion: v1alpha1\nkind: KubeNodeConfig\nlabels:\n  gpu: \"true\"\ntaints:\n  nvidia.com/gpu: \"true:NoSchedule\"\n")

	return files
}

// appendTo adds documents to a lab file.
func appendTo(files cluster.MapFiles, name, docs string) {
	files[name] = append(append(files[name], "---\n"...), docs...)
}

func placedAt(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.File+":"+strconv.Itoa(f.Line)+" "+string(f.Severity)+" "+f.Code+" ["+f.Node+"] "+f.Path)
	}

	return out
}

func TestContractTraps_TheReferenceLabAndItsMoveByHandHaveNone(t *testing.T) {
	for name, files := range map[string]cluster.MapFiles{"the lab (v1.13 format)": testlab.Files(t), "the lab moved to the v1.14 format": migratedLab(t)} {
		if fs := checkCodes(t, files, true, layoutCodes...); len(fs) != 0 {
			t.Errorf("%s: %q", name, placedAt(fs))
		}
	}
}

func TestV1Alpha1Conflict_FieldLeftInAPatchIsPlacedAtItsLineNamingTheDocument(t *testing.T) {
	// The v1.13 lab: a KubeNodeConfig written next to the workers' .machine.nodeLabels.
	files := testlab.Files(t)
	appendTo(files, "patches/worker.yaml", "apiVersion: v1alpha1\nkind: KubeNodeConfig\nlabels:\n  node-role.kubernetes.io/worker: \"\"\n")

	fs := checkCodes(t, files, false, layoutCodes...)

	want := []string{
		"examples/homelab/nodes/k8s-node1.yaml:11 error contract.v1alpha1-conflict [k8s-node1] machine.nodeLabels",
		"examples/homelab/patches/worker.yaml:3 error contract.v1alpha1-conflict [k8s-node2] machine.nodeLabels",
		"examples/homelab/patches/worker.yaml:3 error contract.v1alpha1-conflict [k8s-node3] machine.nodeLabels",
		"examples/homelab/patches/worker.yaml:3 error contract.v1alpha1-conflict [k8s-node4] machine.nodeLabels",
	}
	if got := placedAt(fs); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	if want := ".machine.nodeLabels is already set in v1alpha1 config: remove .machine.nodeLabels from examples/homelab/patches/worker.yaml:3, its settings belong in the KubeNodeConfig document at examples/homelab/patches/worker.yaml:6"; fs[1].Message != want {
		t.Errorf("message = %s\nwant      %s", fs[1].Message, want)
	}
}

func TestV1Alpha1Conflict_DocumentOnAFormatThatGeneratesTheFieldIsPlacedAtTheDocument(t *testing.T) {
	// The v1.13 lab generates .machine.kubelet: a KubeletConfig on the control plane conflicts.
	files := testlab.Files(t)
	files["patches/controlplane.yaml"] = []byte("apiVersion: v1alpha1\nkind: KubeletConfig\nimage: ghcr.io/siderolabs/kubelet:v1.37.1\n")

	fs := checkCodes(t, files, false, layoutCodes...)
	if got := placedAt(fs); len(got) != 1 || got[0] != "examples/homelab/patches/controlplane.yaml:1 error contract.v1alpha1-conflict [k8s-master] KubeletConfig" {
		t.Fatalf("findings: %q", got)
	}

	if !strings.Contains(fs[0].Message, "talops generates the v1.13 format, which sets .machine.kubelet itself; move the repository to the v1.14 format (configVersion)") {
		t.Errorf("message = %s", fs[0].Message)
	}
}

func TestV1Alpha1Conflict_FieldNextToAGeneratedDocumentSaysWhereItsSettingsGo(t *testing.T) {
	// The lab unpinned: the 1.14 format generates a ResolverConfig, common.yaml keeps hostDNS.
	files := testlab.Files(t)
	testlab.Unpin(t, files)

	n := 0

	for _, f := range checkCodes(t, files, false, layoutCodes...) {
		if f.Path != "machine.features.hostDNS" {
			continue
		}

		n++

		if f.Code != rules.CodeV1Alpha1Conflict || f.File != "examples/homelab/patches/common.yaml" || f.Line != 27 ||
			!strings.HasSuffix(f.Message, "its settings belong in a ResolverConfig document (a patch of that kind merges into the one talops generates for the v1.14 format)") {
			t.Errorf("finding = %+v", f)
		}
	}

	if n != 5 {
		t.Errorf("want the field reported on each of the 5 nodes, got %d", n)
	}
}

func TestControlPlaneRole_KubeNodeConfigWithoutTheLabelOrTaintTheV1Alpha1LayoutAdded(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      []string
	}{
		{"neither", "labels:\n  topology.kubernetes.io/zone: a\n", []string{
			"examples/homelab/patches/controlplane.yaml:14 warning contract.control-plane-taint [k8s-master] KubeNodeConfig.taints",
			"examples/homelab/patches/controlplane.yaml:18 warning contract.control-plane-label [k8s-master] KubeNodeConfig.labels",
		}},
		{"the label without the taint", "labels:\n  node-role.kubernetes.io/control-plane: \"\"\n", []string{
			"examples/homelab/patches/controlplane.yaml:14 warning contract.control-plane-taint [k8s-master] KubeNodeConfig.taints",
		}},
		{"both", "labels:\n  node-role.kubernetes.io/control-plane: \"\"\ntaints:\n  node-role.kubernetes.io/control-plane: NoSchedule\n", nil},
		{"the label and taints written empty: workloads are meant to run there", "labels:\n  node-role.kubernetes.io/control-plane: \"\"\ntaints: {}\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := migratedLab(t)
			// The generated document deleted, and one written by hand from line 14.
			appendTo(files, "patches/controlplane.yaml", "apiVersion: v1alpha1\nkind: KubeNodeConfig\n$patch: delete\n---\napiVersion: v1alpha1\nkind: KubeNodeConfig\nannotations:\n  a: b\n"+tc.doc)

			fs := checkCodes(t, files, false, layoutCodes...)
			if got := placedAt(fs); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}

			for _, f := range fs {
				if !strings.Contains(f.Message, "the KubeNodeConfig at examples/homelab/patches/controlplane.yaml:14 has no node-role.kubernetes.io/control-plane") {
					t.Errorf("message = %s", f.Message)
				}
			}
		})
	}
}

func TestAPIServer_DocumentWithoutTheAuthDocumentsAndWithARefusedFlag(t *testing.T) {
	files := migratedLab(t)
	appendTo(files, "patches/controlplane.yaml", strings.Join([]string{
		"apiVersion: v1alpha1\nkind: KubeAuthorizerConfig\nname: node\n$patch: delete\n",
		"apiVersion: v1alpha1\nkind: KubeAuthorizerConfig\nname: rbac\n$patch: delete\n",
		"apiVersion: v1alpha1\nkind: KubeAuthenticationConfig\n$patch: delete\n",
		"apiVersion: v1alpha1\nkind: KubeAPIServerConfig\nextraArgs:\n  oidc-signing-algs: RS256\n",
	}, "---\n"))

	fs := checkCodes(t, files, false, layoutCodes...)

	want := []string{
		"examples/homelab/patches/controlplane.yaml:24 error contract.apiserver-authorizers [k8s-master] KubeAPIServerConfig",
		"examples/homelab/patches/controlplane.yaml:27 error contract.apiserver-arg [k8s-master] KubeAPIServerConfig.extraArgs.oidc-signing-algs",
		"examples/homelab/patches/controlplane.yaml:24 warning contract.apiserver-authentication [k8s-master] KubeAPIServerConfig",
	}
	if got := placedAt(fs); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	if !strings.HasSuffix(fs[1].Message, "remove it: with a KubeAuthenticationConfig kube-apiserver accepts every RFC 7518 asymmetric algorithm, and no setting narrows them") {
		t.Errorf("message = %s", fs[1].Message)
	}
}

func TestSearchDomainsCleared_EmptyListIsWarnedAtItsLine(t *testing.T) {
	for _, tc := range []struct {
		domains string
		want    int
	}{
		{"[]", 5},
		{"[lab.example]", 0},
	} {
		files := migratedLab(t)
		testlab.Edit(t, files, "patches/common.yaml", "kind: ResolverConfig\n", "kind: ResolverConfig\nsearchDomains:\n  domains: "+tc.domains+"\n")

		fs := checkCodes(t, files, false, layoutCodes...)
		if len(fs) != tc.want {
			t.Fatalf("domains: %s: findings %q", tc.domains, placedAt(fs))
		}

		for _, f := range fs {
			if f.Code != rules.CodeSearchDomainsCleared || f.Severity != finding.Warning || f.File != "examples/homelab/patches/common.yaml" || f.Line != 30 ||
				!strings.Contains(f.Message, "clears the search domains DHCP or the platform gives: remove domains to keep them") {
				t.Errorf("finding = %+v", f)
			}
		}
	}
}

func TestEtcdKeyDropped_DocumentWithoutTheBundlesKeyNamesItNeverPrintsIt(t *testing.T) {
	secret := regexp.MustCompile(`secretboxencryptionsecret: (\S+)`).FindSubmatch(testlab.Files(t)["secrets.THROWAWAY.yaml"])[1]

	for _, tc := range []struct {
		name, keys string
		want       bool
	}{
		{"a new key only", "              - name: key3\n                secret: bm90IHRoZSBidW5kbGUncyBrZXkgYXQgYWxsLi4uLi4=\n", true},
		{"a new key first, the bundle's kept", "              - name: key3\n                secret: bm90IHRoZSBidW5kbGUncyBrZXkgYXQgYWxsLi4uLi4=\n              - name: key2\n                secret: " + string(secret) + "\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := migratedLab(t)
			appendTo(files, "patches/controlplane.yaml", "apiVersion: v1alpha1\nkind: KubeEtcdEncryptionConfig\n$patch: delete\n---\n"+
				"apiVersion: v1alpha1\nkind: KubeEtcdEncryptionConfig\nconfig:\n  resources:\n    - resources: [secrets]\n      providers:\n        - secretbox:\n            keys:\n"+tc.keys)

			fs := checkCodes(t, files, false, layoutCodes...)
			if !tc.want {
				if len(fs) != 0 {
					t.Fatalf("findings %q", placedAt(fs))
				}

				return
			}

			if got := placedAt(fs); len(got) != 1 || got[0] != "examples/homelab/patches/controlplane.yaml:14 error contract.etcd-key-dropped [k8s-master] KubeEtcdEncryptionConfig" {
				t.Fatalf("findings %q", got)
			}

			if msg := fs[0].Message; strings.Contains(msg, string(secret)) || !strings.Contains(msg, "does not keep the key secrets.secretboxencryptionsecret (key2 in the document Talos generates) of examples/homelab/secrets.THROWAWAY.yaml") {
				t.Errorf("message names the key by where the bundle keeps it, and holds no key: %v", !strings.Contains(msg, string(secret)))
			}
		})
	}
}

func TestAPIServer_HandWrittenDocumentOnTheV1Alpha1FormatKeepsMachinerysOtherErrors(t *testing.T) {
	// The v1.13 lab: .cluster.apiServer deleted, a KubeAPIServerConfig written by hand
	// without an image. The flag is placed at its line; machinery's error about the
	// document, which also says the image is missing, stays.
	files := testlab.Files(t)
	files["patches/controlplane.yaml"] = []byte("cluster:\n  apiServer:\n    $patch: delete\n---\napiVersion: v1alpha1\nkind: KubeAPIServerConfig\nextraArgs:\n  oidc-signing-algs: RS256\n")

	want := []string{
		"examples/homelab/patches/controlplane.yaml:5 error config.invalid [k8s-master] ",
		"examples/homelab/patches/controlplane.yaml:5 error contract.apiserver-authorizers [k8s-master] KubeAPIServerConfig",
		"examples/homelab/patches/controlplane.yaml:8 error contract.apiserver-arg [k8s-master] KubeAPIServerConfig.extraArgs.oidc-signing-algs",
		"examples/homelab/patches/controlplane.yaml:5 warning contract.apiserver-authentication [k8s-master] KubeAPIServerConfig",
	}
	if got := placedAt(checkCodes(t, files, false, layoutCodes...)); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestAPIServer_AuthDocumentsAPatchDeletesArePlacedAtTheDeletion(t *testing.T) {
	// The generated KubeAPIServerConfig kept; the documents Talos generates with it deleted.
	files := migratedLab(t)
	appendTo(files, "patches/controlplane.yaml", "apiVersion: v1alpha1\nkind: KubeAuthorizerConfig\nname: node\n$patch: delete\n---\n"+
		"apiVersion: v1alpha1\nkind: KubeAuthorizerConfig\nname: rbac\n$patch: delete\n---\napiVersion: v1alpha1\nkind: KubeAuthenticationConfig\n$patch: delete\n")

	fs := checkCodes(t, files, false, layoutCodes...)

	want := []string{
		"examples/homelab/patches/controlplane.yaml:15 error contract.apiserver-authorizers [k8s-master] KubeAPIServerConfig",
		"examples/homelab/patches/controlplane.yaml:20 warning contract.apiserver-authentication [k8s-master] KubeAPIServerConfig",
	}
	if got := placedAt(fs); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	if !strings.HasPrefix(fs[0].Message, "the KubeAPIServerConfig talops generates comes with no KubeAuthorizerConfig document (deleted at examples/homelab/patches/controlplane.yaml:15): ") {
		t.Errorf("message = %s", fs[0].Message)
	}
}
