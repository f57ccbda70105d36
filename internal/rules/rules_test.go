package rules_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/rules"
	"github.com/talops/talops/internal/secrets"
	"github.com/talops/talops/internal/testlab"
)

// shared keeps one throwaway bundle for every test that drops the secrets file.
var shared = &secrets.Loader{Getenv: testlab.NoEnv, Now: time.Now}

func check(t *testing.T, files cluster.MapFiles, strict bool) []finding.Finding {
	t.Helper()

	c := testlab.Load(t, files)

	b, err := shared.Load(c)
	if err != nil {
		t.Fatal(err)
	}

	ids, err := render.SchematicIDs(c)
	if err != nil {
		t.Fatal(err)
	}

	nodes := render.All(context.Background(), c, b, render.Options{Installer: render.FactoryInstaller(ids)})

	return checkInput(t, &rules.Input{Cluster: c, Nodes: nodes, Bundle: b, Strict: strict})
}

// checkInput runs every rule with a live context, against the release data talops uses
// offline unless the input names its own (without the note on where it came from, which
// TestCheck_ReferenceLabIsClean shows).
func checkInput(t testing.TB, in *rules.Input) []finding.Finding {
	t.Helper()

	if in.Catalog == nil && reflect.DeepEqual(in.Release, rules.ReleaseLookup{}) {
		in.Catalog, _ = testlab.Offline(in.Cluster)
	}

	out, err := rules.Check(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}

	judgedInChunks(t, in, out)

	return out
}

// judgedInChunks checks that a Judge given the input's nodes one at a time, then two at a
// time, finds what Check found over every node at once: every test of the rules that goes
// through checkInput holds chunked judging to the whole state's findings.
func judgedInChunks(t testing.TB, in *rules.Input, want []finding.Finding) {
	t.Helper()

	for _, size := range []int{1, 2} {
		j := rules.NewJudge(in)

		for chunk := range slices.Chunk(in.Nodes, size) {
			if err := j.Nodes(context.Background(), chunk); err != nil {
				t.Fatal(err)
			}
		}

		if got := j.Findings(); !reflect.DeepEqual(got, want) {
			t.Errorf("judged %d node(s) at a time:\n%s\nwant, as Check over every node:\n%s", size, describeAll(got), describeAll(want))
		}
	}
}

func describeAll(fs []finding.Finding) string {
	var b strings.Builder

	for _, f := range fs {
		fmt.Fprintf(&b, "  %s %s %s:%d node=%s path=%s: %s\n", f.Severity, f.Code, f.File, f.Line, f.Node, f.Path, f.Message)
	}

	return b.String()
}

// devicePluginPatch deploys the NVIDIA device plugin's RuntimeClass, which CDI replaces.
const devicePluginPatch = `cluster:
  inlineManifests:
    - name: nvidia-device-plugin
      contents: |
        apiVersion: node.k8s.io/v1
        kind: RuntimeClass
        metadata:
          name: nvidia
        handler: nvidia
`

func TestJudge_ChunksFindWhatTheWholeStateFinds(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name  string
		files cluster.MapFiles
		// want are codes the whole state finds: what needs every node is exercised.
		want []string
	}{
		{"the reference lab", testlab.Files(t), nil},
		{"a 50-node lab with GPU workers", testlab.Scaled(t, 50), nil},
		{
			"GPU nodes whose schematic mixes tracks, with a pin and the device plugin",
			gpuRepo{talos: currentRelease, flavour: "production", pin: "570", extensions: []string{openLTS, toolkitProd}, patches: []string{modulesPatch, devicePluginPatch}, plain: true}.files(t),
			[]string{rules.CodeNvidiaCDISetup, rules.CodeNvidiaDriverPin},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			got := checkInput(t, input(t, tc.files))
			for _, code := range tc.want {
				if !slices.ContainsFunc(got, func(f finding.Finding) bool { return f.Code == code }) {
					t.Errorf("no %s among:\n%s", code, describeAll(got))
				}
			}
		})
	}
}

func codes(fs []finding.Finding) string {
	var out []string
	for _, f := range fs {
		out = append(out, string(f.Severity)+" "+f.Code)
	}

	return strings.Join(out, ", ")
}

// The lab's release is one the extension data lacks: offline, talops derives it and says so,
// and nothing else is found, not even with --strict.
func TestCheck_ReferenceLabIsClean(t *testing.T) {
	files := testlab.Files(t)
	c := testlab.Load(t, files)

	b, err := shared.Load(c)
	if err != nil {
		t.Fatal(err)
	}

	ids, err := render.SchematicIDs(c)
	if err != nil {
		t.Fatal(err)
	}

	in := &rules.Input{Cluster: c, Bundle: b, Strict: true, Schematics: ids, SchematicFiles: rules.LoadSchematicFiles(c)}
	in.Nodes = render.All(context.Background(), c, b, render.Options{Installer: render.FactoryInstaller(ids)})
	in.Catalog, in.Release = testlab.Offline(c)

	fs := checkInput(t, in)
	if got := codes(fs); got != "info versions.release-data" {
		t.Fatalf("findings on the reference lab = %q, want only where its release data came from: %+v", got, fs)
	}

	if !strings.Contains(fs[0].Message, "Talos "+testlab.Talos+" is not in this build's extension data") || !strings.Contains(fs[0].Message, "derived from") {
		t.Errorf("the note does not say the release was derived: %s", fs[0].Message)
	}
}

func TestCheck_KubernetesJudgedAgainstTheClusterRelease(t *testing.T) {
	for _, tc := range []struct {
		name, talos, k8s, want string
	}{
		{"1.31 is fine on Talos 1.13 though too old for 1.14", "v1.13.9", "v1.31.0", ""},
		{"1.30 is too old for Talos 1.13", "v1.13.9", "v1.30.4", "error versions.k8s-unsupported"},
		{"1.37 is too new for Talos 1.13", "v1.13.9", "v1.37.0", "error versions.k8s-unsupported"},
		{"1.31 is too old for Talos 1.14", "v1.14.1", "v1.31.0", "error versions.k8s-unsupported"},
		{"a Talos release newer than known", "v1.16.0", "v1.36.4", "error versions.unknown-release"},
		// 1.15 from the hand-kept compatibility entry: Kubernetes 1.33 to 1.38.
		{"1.32 is too old for Talos 1.15", "v1.15.0", "v1.32.4", "error versions.k8s-unsupported"},
		{"1.38 is in range for Talos 1.15", "v1.15.0", "v1.38.0", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := testlab.At(t, tc.talos, tc.k8s)

			var got []finding.Finding
			for _, f := range check(t, files, false) {
				if strings.HasPrefix(f.Code, "versions.") {
					got = append(got, f)
				}
			}

			if codes(got) != tc.want {
				t.Fatalf("findings = %q, want %q (%+v)", codes(got), tc.want, got)
			}

			if len(got) > 0 && (got[0].File != "examples/homelab/talops.yaml" || got[0].Line == 0) {
				t.Errorf("finding not placed on talops.yaml: %+v", got[0])
			}
		})
	}
}

func TestCheck_MetalNeedsAnInstallDiskCloudDoesNot(t *testing.T) {
	files := testlab.Files(t)
	testlab.Edit(t, files, "talops.yaml", "    schematic: base\n    installDisk: /dev/sda\n    patches: [nodes/k8s-node4.yaml]", "    schematic: base\n    patches: [nodes/k8s-node4.yaml]")

	if fs := check(t, files, false); len(fs) != 0 {
		t.Errorf("nocloud without install disk: %+v", fs)
	}

	testlab.Edit(t, files, "talops.yaml", "platform: nocloud", "platform: metal")

	fs := check(t, files, false)
	if len(fs) != 1 || fs[0].Code != rules.CodeConfigInvalid || fs[0].Node != "k8s-node4" {
		t.Fatalf("findings = %+v", fs)
	}

	if fs[0].File != "examples/homelab/talops.yaml" || fs[0].Line != 49 {
		t.Errorf("placed at %s:%d, want the node in talops.yaml", fs[0].File, fs[0].Line)
	}
}

// A node's own platform picks the mode Talos validates its config in: a metal box beside
// nocloud VMs needs an install disk, a nocloud VM on a metal cluster does not.
func TestCheck_ValidationModeIsTheNodesOwnPlatform(t *testing.T) {
	for _, tc := range []struct {
		name, cluster, node string
		wantInvalid         bool
	}{
		{name: "a nocloud node without install disk on a metal cluster", cluster: "metal", node: "nocloud"},
		{name: "a metal node without install disk on a nocloud cluster", cluster: "nocloud", node: "metal", wantInvalid: true},
		{name: "a node naming the cluster's platform again", cluster: "metal", node: "metal", wantInvalid: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := testlab.Files(t)
			testlab.Edit(t, files, "talops.yaml", "platform: nocloud", "platform: "+tc.cluster)
			testlab.Edit(t, files, "talops.yaml", "    schematic: base\n    installDisk: /dev/sda\n    patches: [nodes/k8s-node4.yaml]",
				"    schematic: base\n    platform: "+tc.node+"\n    patches: [nodes/k8s-node4.yaml]")

			fs := check(t, files, false)

			switch {
			case !tc.wantInvalid && len(fs) != 0:
				t.Errorf("want no finding, got %+v", fs)
			case tc.wantInvalid && (len(fs) != 1 || fs[0].Code != rules.CodeConfigInvalid || fs[0].Node != "k8s-node4"):
				t.Errorf("want one config.invalid on k8s-node4, got %+v", fs)
			}
		})
	}
}

func TestCheck_WarningPointsAtThePatchLineAndStrictMakesItAnError(t *testing.T) {
	files := testlab.Files(t)
	files["patches/worker.yaml"] = append(files["patches/worker.yaml"], []byte(`  files:
    - path: /var/etc/motd
      permissions: 0o644
      op: create
      content: hello
`)...)

	fs := check(t, files, false)
	if len(fs) != 4 {
		t.Fatalf("want one warning per worker, got %+v", fs)
	}

	f := fs[0]
	if f.Severity != finding.Warning || f.Code != rules.CodeConfigWarning || f.File != "examples/homelab/patches/worker.yaml" || f.Line != 5 || f.Path != "machine.files" {
		t.Errorf("finding = %+v", f)
	}

	if fs := check(t, files, true); fs[0].Severity != finding.Error {
		t.Errorf("strict: %+v", fs[0])
	}
}

func TestCheck_ThrowawaySecretsAreNoted(t *testing.T) {
	files := testlab.Files(t)
	testlab.Edit(t, files, "talops.yaml", "secrets: secrets.THROWAWAY.yaml\n", "")

	fs := check(t, files, false)
	if codes(fs) != "info secrets.throwaway" {
		t.Errorf("findings = %+v", fs)
	}
}

func TestCheck_RenderFailureBecomesAPlacedFinding(t *testing.T) {
	files := testlab.Files(t)
	testlab.Edit(t, files, "patches/common.yaml", "  sysctls:", "  sysctlz:")

	fs := check(t, files, false)
	if len(fs) != 5 {
		t.Fatalf("want one finding per node, got %+v", fs)
	}

	for _, f := range fs {
		if f.Code != rules.CodePatchInvalid || f.File != "examples/homelab/patches/common.yaml" || f.Line != 6 || f.Path != "machine.sysctlz" {
			t.Errorf("finding = %+v", f)
		}
	}
}

func TestCheck_TypedDocumentProblemPointsAtTheDocumentInThePatch(t *testing.T) {
	files := testlab.Files(t)
	files["patches/worker.yaml"] = append(files["patches/worker.yaml"], []byte("---\napiVersion: v1alpha1\nkind: KernelModuleConfig\nname: \"\"\n")...)

	fs := check(t, files, false)
	if len(fs) != 4 {
		t.Fatalf("want one finding per worker, got %+v", fs)
	}

	for _, f := range fs {
		if f.Code != rules.CodeConfigInvalid || f.File != "examples/homelab/patches/worker.yaml" || f.Line != 6 || !strings.HasPrefix(f.Message, "KernelModuleConfig/: ") {
			t.Errorf("finding = %+v", f)
		}
	}
}

func TestSplitDocRef_NamesTypedDocumentsNotConfigPaths(t *testing.T) {
	for _, tc := range []struct {
		ref, kind, name string
		ok              bool
	}{
		{"UserVolumeConfig/data", "UserVolumeConfig", "data", true},
		{"KernelModuleConfig/", "KernelModuleConfig", "", true},
		{"UnattendedInstallConfig", "UnattendedInstallConfig", "", true},
		{"machine.install.image", "", "", false},
		{"UnattendedInstallConfig.installer.image", "", "", false},
		{"", "", "", false},
	} {
		kind, name, ok := rules.SplitDocRef(tc.ref)
		if kind != tc.kind || name != tc.name || ok != tc.ok {
			t.Errorf("SplitDocRef(%q) = %q, %q, %v", tc.ref, kind, name, ok)
		}
	}
}

func TestCheck_ClusterWithoutControlPlaneIsWarned(t *testing.T) {
	files := testlab.Files(t)
	testlab.Edit(t, files, "talops.yaml", "role: controlplane", "role: worker")
	testlab.Edit(t, files, "talops.yaml", "  controlplane: [patches/controlplane.yaml]\n", "")

	var got []finding.Finding
	for _, f := range check(t, files, false) {
		if f.Code == rules.CodeNoControlPlane {
			got = append(got, f)
		}
	}

	if len(got) != 1 || got[0].Severity != finding.Warning || got[0].Line != 19 {
		t.Errorf("findings = %+v", got)
	}
}

func TestCheck_KernelArgsTheUpgradeAPIIgnoresAreWarned(t *testing.T) {
	for _, tc := range []struct {
		name, patch string
		want        int
	}{
		{"GRUB without the UKI command line", "machine:\n  install:\n    extraKernelArgs: [console=ttyS0]\n    grubUseUKICmdline: false\n", 1},
		{"no extra arguments", "machine:\n  install:\n    grubUseUKICmdline: false\n", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := testlab.Files(t)
			files["nodes/k8s-node2.yaml"] = append([]byte(tc.patch+"---\n"), files["nodes/k8s-node2.yaml"]...)

			var got []finding.Finding
			for _, f := range check(t, files, false) {
				if f.Code == rules.CodeKernelArgsIgnored {
					got = append(got, f)
				}
			}

			if len(got) != tc.want {
				t.Fatalf("findings = %+v", got)
			}

			if tc.want > 0 && (got[0].File != "examples/homelab/nodes/k8s-node2.yaml" || got[0].Line != 3 || got[0].Node != "k8s-node2") {
				t.Errorf("finding placed at %+v", got[0])
			}
		})
	}
}

func TestCheck_CancelledContextIsAnErrorNotFindings(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	fs, err := rules.Check(ctx, &rules.Input{Cluster: testlab.Load(t, testlab.Files(t))})
	if !errors.Is(err, context.Canceled) || fs != nil {
		t.Errorf("findings %v, error %v, want context.Canceled", fs, err)
	}
}
