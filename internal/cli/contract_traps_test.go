package cli_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/testlab"
)

// A KubeNodeConfig written by hand next to the workers' .machine.nodeLabels: validate
// names the line to remove, where its settings go, and exits 1.
func TestValidate_V1Alpha1FieldNextToItsDocumentIsCaughtAtTheFieldsLine(t *testing.T) {
	t.Parallel()

	files := testlab.Files(t)
	files["patches/worker.yaml"] = append(files["patches/worker.yaml"], "---\napiVersion: v1alpha1\nkind: KubeNodeConfig\nlabels:\n  node-role.kubernetes.io/worker: \"\"\n"...)

	h := newHarness(t, files, nil)

	err := h.run("validate", "--dir", "examples/homelab", "--offline")
	if cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit code %d, want 1 (err %v)", cli.ExitCode(err), err)
	}

	want := "examples/homelab/patches/worker.yaml:3: error contract.v1alpha1-conflict [k8s-node2] machine.nodeLabels: " +
		".machine.nodeLabels is already set in v1alpha1 config: remove .machine.nodeLabels from examples/homelab/patches/worker.yaml:3, " +
		"its settings belong in the KubeNodeConfig document at examples/homelab/patches/worker.yaml:6\n"
	if out := h.stdout.String(); !strings.Contains(out, want) || strings.Contains(out, "config.invalid") {
		t.Errorf("stdout does not hold %q (and no config.invalid):\n%s", want, out)
	}
}

// The generated KubeEtcdEncryptionConfig deleted and written again with a new key only:
// validate names the key the cluster's secrets are encrypted with, never its value.
func TestValidate_EtcdEncryptionWithoutTheBundlesKeyNamesTheKeyNotItsValue(t *testing.T) {
	t.Parallel()

	files := testlab.Files(t)
	secret := regexp.MustCompile(`secretboxencryptionsecret: (\S+)`).FindSubmatch(files["secrets.THROWAWAY.yaml"])[1]

	testlab.Unpin(t, files)
	testlab.Edit(t, files, "patches/common.yaml", "  features:\n    hostDNS:\n      enabled: true\n      forwardKubeDNSToHost: true\n",
		"---\napiVersion: v1alpha1\nkind: ResolverConfig\nhostDNS:\n  enabled: true\n  forwardKubeDNSToHost: true\n")
	files["patches/controlplane.yaml"] = []byte("apiVersion: v1alpha1\nkind: KubeEtcdEncryptionConfig\n$patch: delete\n---\n" +
		"apiVersion: v1alpha1\nkind: KubeEtcdEncryptionConfig\nconfig:\n  resources:\n    - resources: [secrets]\n      providers:\n        - secretbox:\n" +
		"            keys:\n              - name: key3\n                secret: bm90IHRoZSBidW5kbGUncyBrZXkgYXQgYWxsLi4uLi4=\n")
	files["patches/worker.yaml"] = []byte("apiVersion: v1alpha1\nkind: KubeNodeConfig\nlabels:\n  node-role.kubernetes.io/worker: \"\"\n")
	testlab.Edit(t, files, "nodes/k8s-node1.yaml", "  nodeLabels:\n    gpu: \"true\"\n  nodeTaints:\n    nvidia.com/gpu: \"true:NoSchedule\"\n", "")

	h := newHarness(t, files, nil)

	err := h.run("validate", "--dir", "examples/homelab", "--offline")
	if cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit code %d, want 1 (err %v)\n%s", cli.ExitCode(err), err, h.stdout.String())
	}

	out := h.stdout.String() + h.stderr.String()
	if strings.Contains(out, string(secret)) {
		t.Fatal("validate printed the cluster's etcd encryption key")
	}

	want := "examples/homelab/patches/controlplane.yaml:5: error contract.etcd-key-dropped [k8s-master] KubeEtcdEncryptionConfig: " +
		"the KubeEtcdEncryptionConfig at examples/homelab/patches/controlplane.yaml:5 does not keep the key secrets.secretboxencryptionsecret " +
		"(key2 in the document Talos generates) of examples/homelab/secrets.THROWAWAY.yaml: the secrets etcd holds encrypted with it become unreadable; "
	if !strings.HasPrefix(h.stdout.String(), want) || !strings.Contains(h.stdout.String(), "validate failed: 5 nodes checked, 1 error, 0 warnings") {
		t.Errorf("stdout does not start with %q:\n%s", want, h.stdout.String())
	}
}
