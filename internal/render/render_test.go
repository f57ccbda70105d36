package render_test

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/secrets"
	"github.com/talops/talops/internal/testlab"
	"github.com/talops/talops/internal/testlab/hostile"
)

func renderLab(t testing.TB, files cluster.MapFiles) []render.Result {
	t.Helper()

	c := testlab.Load(t, files)
	b, opts := labInputs(t, c)

	return render.All(context.Background(), c, b, opts)
}

// labInputs are what a lab renders with: its secrets bundle, and the installers of its
// schematics as the Image Factory names them.
func labInputs(t testing.TB, c *cluster.Cluster) (*secrets.Bundle, render.Options) {
	t.Helper()

	b, err := (&secrets.Loader{Getenv: testlab.NoEnv, Now: time.Now}).Load(c)
	if err != nil {
		t.Fatal(err)
	}

	ids, err := render.SchematicIDs(c)
	if err != nil {
		t.Fatal(err)
	}

	return b, render.Options{Installer: render.FactoryInstaller(ids)}
}

func node(t testing.TB, rs []render.Result, name string) *render.Machine {
	t.Helper()

	for _, r := range rs {
		if r.Name == name {
			if r.Err != nil {
				t.Fatalf("render %s: %v", name, r.Err)
			}

			return r.Machine
		}
	}

	t.Fatalf("no node %s", name)

	return nil
}

func encoded(t testing.TB, n *render.Machine) string {
	t.Helper()

	data, err := n.Bytes()
	if err != nil {
		t.Fatal(err)
	}

	return string(data)
}

func TestRender_LabNodesCarryTheirPatchesAndInstaller(t *testing.T) {
	rs := renderLab(t, testlab.Files(t))

	gpu := node(t, rs, "k8s-node1")
	cfg := encoded(t, gpu)

	for _, want := range []string{
		"name: nvidia_modeset",
		"nvidia.com/gpu: true:NoSchedule",
		"hostname: k8s-node1",
		"http://10.0.20.10:5000",
		"image: factory.talos.dev/nocloud-installer/",
		":" + testlab.Talos,
	} {
		if !strings.Contains(cfg, want) {
			t.Errorf("k8s-node1 config lacks %q", want)
		}
	}

	master := encoded(t, node(t, rs, "k8s-master"))
	if !strings.Contains(master, "oidc-issuer-url") || strings.Contains(master, "nvidia") {
		t.Errorf("control plane config: OIDC missing or NVIDIA present")
	}

	if gpu.Installer == node(t, rs, "k8s-node2").Installer {
		t.Errorf("gpu and base workers share installer %s", gpu.Installer)
	}

	if len(gpu.Layers) != 3 || gpu.Layers[2].File != "examples/homelab/nodes/k8s-node1.yaml" {
		t.Errorf("layers = %+v", gpu.Layers)
	}
}

func TestRender_JSONPatchOnMultiDocumentConfigPatchesV1Alpha1(t *testing.T) {
	files := testlab.Files(t)
	files["patches/json.yaml"] = []byte("- op: add\n  path: /machine/nodeLabels/zone\n  value: rack1\n")
	testlab.Edit(t, files, "talops.yaml", "worker: [patches/worker.yaml]", "worker: [patches/worker.yaml, patches/json.yaml]")

	cfg := encoded(t, node(t, renderLab(t, files), "k8s-node1"))

	if !strings.Contains(cfg, "zone: rack1") {
		t.Error("JSON patch not applied")
	}

	if !strings.Contains(cfg, "kind: HostnameConfig") {
		t.Error("other documents lost after the JSON patch")
	}
}

func TestRender_UnknownKeyInPatchPointsAtItsLine(t *testing.T) {
	files := testlab.Files(t)
	testlab.Edit(t, files, "patches/worker.yaml", "  nodeLabels:", "  nodeLabelz:")

	rs := renderLab(t, files)

	err := rs[1].Err
	if err == nil {
		t.Fatal("rendered a patch with an unknown key")
	}

	var ie *cluster.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("error is not placed: %v", err)
	}

	if want := "examples/homelab/patches/worker.yaml:3: machine.nodeLabelz: unknown key"; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}

func TestRender_UnknownKeyInSecondDocumentPointsAtItsLine(t *testing.T) {
	files := testlab.Files(t)
	testlab.Edit(t, files, "nodes/k8s-node1.yaml", "hostname: k8s-node1", "hostnam: k8s-node1")

	err := renderLab(t, files)[1].Err
	if err == nil || !strings.Contains(err.Error(), "nodes/k8s-node1.yaml:19: hostnam: unknown key in HostnameConfig") {
		t.Errorf("error = %v", err)
	}
}

func TestRender_MalformedPatchIsAYAMLErrorWithLine(t *testing.T) {
	files := testlab.Files(t)
	files["patches/worker.yaml"] = []byte("machine:\n  nodeLabels: [a\n")

	err := renderLab(t, files)[1].Err
	if err == nil || !strings.HasPrefix(err.Error(), "examples/homelab/patches/worker.yaml:") || !strings.Contains(err.Error(), "YAML") {
		t.Errorf("error = %v", err)
	}
}

func TestRender_CompleteConfigIsUsedAsItIs(t *testing.T) {
	files := testlab.Files(t)
	rs := renderLab(t, files)
	files["rendered/k8s-node4.yaml"] = []byte(encoded(t, node(t, rs, "k8s-node4")))
	testlab.Edit(t, files, "talops.yaml", "    installDisk: /dev/sda\n    patches: [nodes/k8s-node4.yaml]", "    config: rendered/k8s-node4.yaml")

	n := node(t, renderLab(t, files), "k8s-node4")
	if n.Generated || encoded(t, n) != string(files["rendered/k8s-node4.yaml"]) {
		t.Error("complete config was not kept as it is")
	}
}

func FuzzPatch(f *testing.F) {
	lab := testlab.Files(f)
	for _, name := range []string{"patches/common.yaml", "patches/controlplane.yaml", "nodes/k8s-node1.yaml"} {
		f.Add(lab[name])
	}

	f.Add([]byte("- op: add\n  path: /machine/nodeLabels/x\n  value: y\n"))
	f.Add([]byte(`[{"op": "remove", "path": "/cluster"}]`))
	f.Add([]byte("machine:\n  $patch: delete\n"))
	f.Add([]byte("machine:\n  kubelet:\n    extraConfig: " + hostile.AliasBomb(9) + "\n"))
	f.Add([]byte("- op: add\n  path: /machine/kubelet/extraConfig\n  value: " + hostile.AliasBomb(9) + "\n"))

	c := testlab.Load(f, lab)

	b, err := (&secrets.Loader{Getenv: testlab.NoEnv, Now: time.Now}).Load(c)
	if err != nil {
		f.Fatal(err)
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		hostile.Bounded(t, func() {
			files := maps.Clone(lab)
			files["patches/worker.yaml"] = data

			c, err := cluster.Load("lab", files)
			if err != nil {
				return
			}

			_, err = render.One(c, b, c.Spec.Nodes[2], render.Options{})
			if err != nil {
				var ie *cluster.InputError
				if !errors.As(err, &ie) {
					t.Fatalf("unplaced error: %v", err)
				}
			}
		})
	})
}

func TestRender_ConfigVersionKeepsTheContractAcrossATalosBump(t *testing.T) {
	files := testlab.Files(t) // pinned to configVersion v1.13
	testlab.SetVersions(t, files, "v1.14.1", "")

	cfg := encoded(t, node(t, renderLab(t, files), "k8s-node2"))

	// The 1.13 contract keeps the installer in machine.install, with the new release's tag.
	if !strings.Contains(cfg, "    install:\n        disk: /dev/sda\n        image: factory.talos.dev/nocloud-installer/") || !strings.Contains(cfg, ":v1.14.1\n") {
		t.Errorf("config:\n%s", cfg)
	}

	if strings.Contains(cfg, "kind: UnattendedInstallConfig") {
		t.Error("the 1.14 contract was used")
	}
}

// patchErrors renders the lab with patches/worker.yaml replaced and returns k8s-node2's
// errors, one line each.
func patchErrors(t *testing.T, patch string) []string {
	t.Helper()

	files := testlab.Files(t)
	files["patches/worker.yaml"] = []byte(patch)

	err := node2Err(t, renderLab(t, files))
	if err == nil {
		return nil
	}

	return strings.Split(err.Error(), "\n")
}

func node2Err(t testing.TB, rs []render.Result) error {
	t.Helper()

	for _, r := range rs {
		if r.Name == "k8s-node2" {
			return r.Err
		}
	}

	t.Fatal("no node k8s-node2")

	return nil
}

func TestRender_PatchErrorsPointAtTheLineAndFieldToFix(t *testing.T) {
	const file = "examples/homelab/patches/worker.yaml"

	tests := []struct {
		name  string
		patch string
		want  []string
	}{
		{
			name:  "unknown key in a list item is named with its index",
			patch: "machine:\n  kernel:\n    modules:\n      - name: a\n      - name: b\n        bogus: 1\n",
			want:  []string{file + ":6: machine.kernel.modules[1].bogus: unknown key"},
		},
		{
			name:  "unknown keys in two list items are both reported",
			patch: "machine:\n  network:\n    interfaces:\n      - interface: eth0\n        vlanz: []\n      - interface: eth1\n        vlanz: []\n",
			want: []string{
				file + ":5: machine.network.interfaces[0].vlanz: unknown key",
				file + ":7: machine.network.interfaces[1].vlanz: unknown key",
			},
		},
		{
			name:  "RFC 6902 operation on a missing path points at that operation",
			patch: "- op: add\n  path: /machine/sysctls/a\n  value: \"1\"\n- op: replace\n  path: /machine/nope/x\n  value: 1\n",
			want:  []string{file + `:5: machine.nope.x: RFC 6902 patch: replace operation does not apply: doc is missing path: /machine/nope/x: missing value`},
		},
		{
			name:  "RFC 6902 copy of a secret into a field of another type names the field and the type, not the value",
			patch: "- op: add\n  path: /machine/sysctls/a\n  value: \"1\"\n- op: copy\n  from: /cluster/secret\n  path: /machine/install/wipe\n",
			want:  []string{file + ":6: machine.install.wipe: YAML: cannot construct !!str into bool"},
		},
		{
			name:  "RFC 6902 operation adding an unknown key names the key at its value",
			patch: "- op: add\n  path: /machine/sysctls/a\n  value: \"1\"\n- op: add\n  path: /machine/bogus\n  value: 1\n",
			want:  []string{file + ":6: machine.bogus: unknown key"},
		},
		{
			name:  "RFC 6902 operation adding an unknown key deep in its value names that key",
			patch: "- op: add\n  path: /machine/kernel\n  value:\n    modules:\n      - name: a\n        bogus: 1\n",
			want:  []string{file + ":6: machine.kernel.modules[0].bogus: unknown key"},
		},
		{
			name:  "RFC 6902 patch followed by other documents is refused at the second document",
			patch: "- op: add\n  path: /machine/sysctls/a\n  value: \"1\"\n---\napiVersion: v1alpha1\nkind: HostnameConfig\nhostname: x\n",
			want:  []string{file + ":5: an RFC 6902 patch file holds one document and the documents after it would be ignored: move them to a patch file of their own"},
		},
		{
			name:  "a document's name with a line break is refused at the document",
			patch: "machine:\n  sysctls:\n    a: \"1\"\n---\napiVersion: v1alpha1\nkind: UserVolumeConfig\nname: \"data\\n<!--\"\nprovisioning:\n  diskSelector:\n    match: system_disk\n",
			want:  []string{file + ":5: name: a document's name must not hold a line break or another control character"},
		},
		{
			name:  "patch of empty documents is empty",
			patch: "---\n# nothing\n---\n",
			want:  []string{file + ": patch is empty"},
		},
		{
			name:  "value of the wrong type names its key",
			patch: "machine:\n  sysctls:\n    a: \"1\"\n  kubelet:\n    extraArgs: [a]\n",
			want:  []string{file + ":5: machine.kubelet.extraArgs: YAML: cannot construct !!seq into meta.Args"},
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := patchErrors(t, tt.patch)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestRender_FieldsSetByAnRFC6902PatchPointAtTheOperation(t *testing.T) {
	files := testlab.Files(t)
	files["patches/worker.yaml"] = []byte("- op: add\n  path: /machine/sysctls/a\n  value: \"1\"\n- op: replace\n  path: /machine/install\n  value:\n    disk: /dev/sda\n    image: ghcr.io/siderolabs/installer:v1.13.9\n")

	n := node(t, renderLab(t, files), "k8s-node2")
	l := n.Layers[len(n.Layers)-2] // worker patch, then the node's own

	d := l.Index.Find("", "")
	if d < 0 {
		t.Fatal("no v1alpha1 document in the RFC 6902 patch's layer")
	}

	for path, want := range map[string]int{"machine.sysctls.a": 3, "machine.install": 6, "machine.install.image": 8} {
		if line, exact := l.Index.Docs[d].Nearest(path); !exact || line != want {
			t.Errorf("%s at line %d (exact %v), want %d", path, line, exact, want)
		}
	}
}

func TestRender_CancelledContextStopsEveryNode(t *testing.T) {
	c := testlab.Load(t, testlab.Files(t))

	b, err := (&secrets.Loader{Getenv: testlab.NoEnv, Now: time.Now}).Load(c)
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	for _, r := range render.All(ctx, c, b, render.Options{}) {
		if !errors.Is(r.Err, context.Canceled) || r.Machine != nil {
			t.Errorf("%s: machine %v, error %v, want cancelled", r.Name, r.Machine != nil, r.Err)
		}
	}
}
