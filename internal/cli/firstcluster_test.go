package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"filippo.io/age"

	"github.com/talops/talops/internal/testlab"
)

// guidePatch is the patch docs/first-cluster.md asks the reader to write, as written there.
func guidePatch(t *testing.T, name string) []byte {
	t.Helper()

	guide := string(readFile(t, filepath.Join(testlab.Root(), "docs", "first-cluster.md")))

	m := regexp.MustCompile("(?s)<!-- file: " + regexp.QuoteMeta(name) + " -->\n```yaml\n(.*?)```").FindStringSubmatch(guide)
	if m == nil {
		t.Fatalf("docs/first-cluster.md has no block for %s", name)
	}

	return []byte(m[1])
}

// The offline steps of docs/first-cluster.md, run as written: init, the nodes, the Cilium
// patch, validate, schematics, the plan of a new cluster, the talosconfig.
func TestFirstClusterGuide_OfflineStepsRunAsWritten(t *testing.T) {
	t.Parallel()

	h := newDiskHarness(t)
	id, keyFile := ageKey(t)
	dir := filepath.Join(t.TempDir(), "lab")
	nothing := t.TempDir()

	step := func(want string, args ...string) string {
		t.Helper()

		if err := h.run(args...); err != nil {
			t.Fatalf("talops %s: %v\n%s", strings.Join(args, " "), err, h.stderr.String())
		}

		if !strings.Contains(h.stdout.String(), want) {
			t.Errorf("talops %s: the output lacks %q:\n%s", strings.Join(args, " "), want, h.stdout.String())
		}

		return h.stdout.String()
	}

	// 2. init; 3. the nodes; 4. the Cilium patch, on the control planes
	guideRepository(t, h, dir, id)

	h.env["SOPS_AGE_KEY_FILE"] = keyFile

	// 5. check it
	step("validate ok: 2 nodes checked, 0 errors, 0 warnings, 1 note", "validate", "--dir", dir, "--strict", "--offline")
	step("1 schematic, 2 nodes: Talos v1.14.7, platform metal", "schematics", "--dir", dir)

	plan := step("Plan: 2 nodes — 2 creates\n", "plan", "--dir", dir, "--against", nothing, "--offline")
	if !strings.Contains(plan, "bootstrap: etcd is started on lab-cp1") {
		t.Errorf("the plan does not bootstrap lab-cp1:\n%s", plan)
	}

	// The patch does what the guide says: no Flannel, no kube-proxy, on the control plane.
	out := t.TempDir()
	step("wrote", "render", "--dir", dir, "--out", out)

	cp := string(readFile(t, filepath.Join(out, "lab-cp1.yaml")))
	if strings.Contains(cp, "kind: KubeFlannelCNIConfig") || !strings.Contains(cp, "kind: KubeProxyConfig\nenabled: false\n") {
		t.Errorf("the control plane still deploys Flannel or kube-proxy")
	}

	// 6. a client config, inside the repository
	step("wrote "+filepath.Join(dir, "talosconfig")+" (os:admin", "talosconfig", "--dir", dir, "--out", filepath.Join(dir, "talosconfig"))
}

// guideRepository runs steps 2 to 4 of docs/first-cluster.md in dir: init with the age
// recipient of id, the worker's address, and the Cilium patch on the control planes.
func guideRepository(t *testing.T, h *diskHarness, dir string, id *age.X25519Identity) {
	t.Helper()

	if err := h.run("init", "--dir", dir, "--name", "lab", "--endpoint", "https://10.0.20.100:6443", "--age-recipient", id.Recipient().String()); err != nil {
		t.Fatalf("talops init: %v\n%s", err, h.stderr.String())
	}

	if want := "The secrets bundle is encrypted with SOPS to 1 age recipient;"; !strings.Contains(h.stdout.String(), want) {
		t.Errorf("talops init: the output lacks %q:\n%s", want, h.stdout.String())
	}

	edit := func(file, old, new string) {
		t.Helper()

		name := filepath.Join(dir, file)

		data := string(readFile(t, name))
		if !strings.Contains(data, old) {
			t.Fatalf("%s lacks %q", file, old)
		}

		if err := os.WriteFile(name, []byte(strings.Replace(data, old, new, 1)), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	edit("talops.yaml", "address: 192.0.2.11  # EDIT: a placeholder (a documentation address)", "address: 10.0.20.101")
	edit("talops.yaml", "  all: [patches/all.yaml]\n", "  all: [patches/all.yaml]\n  controlplane: [patches/cilium.yaml]\n")

	if err := os.WriteFile(filepath.Join(dir, "patches", "cilium.yaml"), guidePatch(t, "patches/cilium.yaml"), 0o600); err != nil {
		t.Fatal(err)
	}
}
