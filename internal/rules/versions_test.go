package rules_test

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/rules"
)

func bump(t *testing.T, base, head gpuRepo) *rules.Bump {
	t.Helper()

	b, h := input(t, base.files(t)), input(t, head.files(t))
	renderErrors(t, b)
	renderErrors(t, h)

	want := rules.CompareVersions(b, h)

	for _, size := range []int{1, 2} {
		if got := chunkedBump(t, b, h, size); !reflect.DeepEqual(got, want) {
			t.Errorf("compared %d node(s) at a time:\n%+v\nwant, as CompareVersions over every node:\n%+v", size, got, want)
		}
	}

	return want
}

// chunkedBump compares base with head as a streamed plan does: the head's nodes size at a
// time in its order, each chunk with the base's nodes of the same names, then the nodes
// only the base has; each state judged by a Judge along the way.
func chunkedBump(t *testing.T, base, head *rules.Input, size int) *rules.Bump {
	t.Helper()

	c := rules.NewComparison(base, head)
	jb, jh := rules.NewJudge(base), rules.NewJudge(head)

	byName := map[string]render.Result{}
	for _, n := range base.Nodes {
		byName[n.Name] = n
	}

	for chunk := range slices.Chunk(head.Nodes, size) {
		var same []render.Result

		for _, n := range chunk {
			if bn, ok := byName[n.Name]; ok {
				same = append(same, bn)
				delete(byName, n.Name)
			}
		}

		c.Nodes(same, chunk)

		if err := jh.Nodes(context.Background(), chunk); err != nil {
			t.Fatal(err)
		}

		if err := jb.Nodes(context.Background(), same); err != nil {
			t.Fatal(err)
		}
	}

	var rest []render.Result

	for _, n := range base.Nodes {
		if _, ok := byName[n.Name]; ok {
			rest = append(rest, n)
		}
	}

	if err := jb.Nodes(context.Background(), rest); err != nil {
		t.Fatal(err)
	}

	return c.Bump(jb.ReleaseFindings(), jh.ReleaseFindings())
}

func codesOf(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, string(f.Severity)+" "+f.Code)
	}

	slices.Sort(out)

	return out
}

func TestCompareVersions_PinnedProductionDriverFrom1_11To1_13(t *testing.T) {
	t.Parallel()

	base := gpuRepo{
		talos: "v1.11.6", k8s: "v1.34.1", flavour: "production", pin: "570",
		extensions: []string{openProd, toolkitProd}, patches: []string{modulesPatch, sysctlPatch},
	}
	head := base
	head.talos = "v1.13.9"

	b := bump(t, base, head)

	want := []string{"error nvidia.driver-pin", "warning nvidia.cdi-setup", "warning versions.contract-change", "warning versions.upgrade-skips-minor"}
	if got := codesOf(b.Findings); !slices.Equal(got, want) {
		t.Fatalf("findings = %q, want %q\n%s", got, want, describe(b.Findings))
	}

	if b.Upgrade == nil || b.Upgrade.Verdict != "skips-minor" || !slices.Equal(b.Upgrade.StepThrough, []string{"v1.12.11"}) || b.Upgrade.Floor != "v1.11.0" {
		t.Errorf("upgrade = %+v", b.Upgrade)
	}

	wantGPU := []rules.GPUChange{{
		Node: "gpu-1", Flavour: "production",
		Driver:  rules.Change{From: "570.172.08", To: "595.91.07"},
		Toolkit: rules.Change{From: "v1.17.8", To: "v1.19.1"},
		Pin:     "570", PinBroken: true,
	}}
	if !slices.Equal(b.GPUNodes, wantGPU) {
		t.Errorf("GPU nodes = %+v, want %+v", b.GPUNodes, wantGPU)
	}

	for _, f := range b.Findings {
		switch f.Code {
		case rules.CodeNvidiaDriverPin:
			for _, part := range []string{"570.172.08 → 595.91.07", "pins 570", "v1.11.6 → v1.13.9"} {
				if !strings.Contains(f.Message, part) {
					t.Errorf("driver-pin message lacks %q: %s", part, f.Message)
				}
			}

			if f.File != "repo/talops.yaml" || f.Line != 9 || f.Node != "gpu-1" {
				t.Errorf("driver-pin not placed on nvidia.driver: %+v", f)
			}
		case rules.CodeUpgradeSkipsMinor:
			if !strings.Contains(f.Message, "skips Talos 1.12") || !strings.Contains(f.Message, "v1.12.11") || f.Line != 4 {
				t.Errorf("skips-minor = %+v", f)
			}
		}
	}

	var moved []string
	for _, e := range b.Extensions {
		moved = append(moved, e.Schematic+" "+e.Extension+" "+e.Tag.From+" → "+e.Tag.To)
	}

	wantMoved := []string{
		"gpu nvidia-open-gpu-kernel-modules-production 570.172.08-v1.11.6 → 595.91.07-v1.13.9",
		"gpu nvidia-container-toolkit-production 570.172.08-v1.17.8 → 595.91.07-v1.19.1",
	}
	if !slices.Equal(moved, wantMoved) {
		t.Errorf("extensions = %q, want %q", moved, wantMoved)
	}
}

func TestCompareVersions_Verdicts(t *testing.T) {
	t.Parallel()

	gpu := func(talos, k8s string) gpuRepo {
		return gpuRepo{talos: talos, k8s: k8s, flavour: "lts", extensions: []string{openLTS, toolkitLTS}, patches: []string{modulesPatch, sysctlPatch}}
	}

	for _, tc := range []struct {
		name       string
		base, head gpuRepo
		want       []string
	}{
		{
			name: "nothing moves", base: gpu("v1.13.9", "v1.36.4"), head: gpu("v1.13.9", "v1.36.4"),
		},
		{
			name: "a patch release moves the LTS driver", base: gpu("v1.13.8", "v1.36.4"), head: gpu("v1.13.9", "v1.36.4"),
			want: []string{"info nvidia.driver-changed"},
		},
		{
			name: "the LTS track switches branch at 1.12", base: gpu("v1.11.6", "v1.34.1"), head: gpu("v1.12.6", "v1.34.1"),
			want: []string{"info nvidia.driver-changed", "warning versions.contract-change"},
		},
		{
			name: "below the target's minimum host version", base: gpu("v1.10.9", "v1.33.0"), head: gpu("v1.13.9", "v1.33.0"),
			want: []string{"error versions.upgrade-unsupported", "info nvidia.driver-changed", "warning nvidia.cdi-setup", "warning versions.contract-change"},
		},
		{
			name: "back across a minor", base: gpu("v1.13.9", "v1.35.0"), head: gpu("v1.12.6", "v1.35.0"),
			want: []string{"error versions.downgrade", "info nvidia.driver-changed"},
		},
		{
			name: "Kubernetes two minors at once", base: gpu("v1.13.9", "v1.34.1"), head: gpu("v1.13.9", "v1.36.4"),
			want: []string{"error versions.k8s-skips-minor"},
		},
		{
			name: "Kubernetes back a minor", base: gpu("v1.13.9", "v1.36.4"), head: gpu("v1.13.9", "v1.35.2"),
			want: []string{"error versions.k8s-downgrade"},
		},
		{
			name: "Kubernetes left behind by the Talos bump", base: gpu("v1.12.6", "v1.30.3"), head: gpu("v1.13.9", "v1.30.3"),
			want: []string{"error versions.k8s-unsupported", "info nvidia.driver-changed", "warning nvidia.cdi-setup", "warning versions.contract-change"},
		},
		{
			name: "extensions renamed or gone at the lts/production split",
			base: gpuRepo{talos: "v1.7.7", extensions: []string{nonfreeBare, toolkitBare, fabricBare}, patches: []string{modulesPatch, sysctlPatch}},
			head: gpuRepo{talos: "v1.8.4", extensions: []string{nonfreeBare, toolkitBare, fabricBare}, patches: []string{modulesPatch, sysctlPatch}},
			want: []string{"error extension.unavailable", "info nvidia.driver-changed", "warning extension.renamed", "warning extension.renamed", "warning versions.contract-change"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			b := bump(t, tc.base, tc.head)

			if got := codesOf(b.Findings); !slices.Equal(got, tc.want) {
				t.Errorf("findings = %q, want %q\n%s", got, tc.want, describe(b.Findings))
			}
		})
	}
}

func TestCompareVersions_GoneExtensionsAreListed(t *testing.T) {
	t.Parallel()

	repo := func(talos string) gpuRepo {
		return gpuRepo{talos: talos, extensions: []string{nonfreeBare, toolkitBare, fabricBare}, patches: []string{modulesPatch, sysctlPatch}}
	}

	b := bump(t, repo("v1.7.7"), repo("v1.8.4"))

	var gone []string

	for _, e := range b.Extensions {
		if e.Gone {
			gone = append(gone, e.Extension)
		}
	}

	if !slices.Equal(gone, []string{"nvidia-fabricmanager"}) {
		t.Errorf("gone = %q, want the fabric manager (the factory's alias points nowhere)", gone)
	}

	if g := b.GPUNodes; len(g) != 1 || g[0].Driver != (rules.Change{From: "535.129.03", To: "535.183.06"}) || g[0].Flavour != "lts" {
		t.Errorf("GPU nodes = %+v", g)
	}
}

// A node that stops rendering drops out of the GPU table; the bump must say why rather
// than explain the bump as if the node were gone.
func TestCompareVersions_NodeThatNoLongerRendersIsReported(t *testing.T) {
	t.Parallel()

	base := gpuRepo{talos: "v1.13.8", k8s: "v1.36.4", flavour: "lts", extensions: []string{openLTS, toolkitLTS}, patches: []string{modulesPatch}}
	head := base
	head.talos = "v1.13.9"
	head.patches = []string{modulesPatch, "machine:\n  sysctls: [not, a, map\n"}

	b := rules.CompareVersions(input(t, base.files(t)), input(t, head.files(t)))

	if len(b.GPUNodes) != 0 {
		t.Fatalf("GPU nodes = %+v: the node does not render", b.GPUNodes)
	}

	found := false

	for _, f := range b.Findings {
		if f.Code == rules.CodePatchInvalid && f.Node == "gpu-1" && f.Severity == finding.Error {
			found = true
		}
	}

	if !found {
		t.Errorf("the bump does not say gpu-1 no longer renders:\n%s", describe(b.Findings))
	}
}

func TestCompareVersions_DriverChangeSaysAnUnchangedToolkitOnce(t *testing.T) {
	t.Parallel()

	base := gpuRepo{talos: "v1.13.8", k8s: "v1.36.4", flavour: "lts", extensions: []string{openLTS, toolkitLTS}, patches: []string{modulesPatch}}
	head := base
	head.talos = "v1.13.9"

	for _, f := range bump(t, base, head).Findings {
		if f.Code != rules.CodeNvidiaDriverChanged {
			continue
		}

		if !strings.Contains(f.Message, "580.173.02 → 580.178.04 (lts), container toolkit v1.19.1 (unchanged)") {
			t.Errorf("driver-changed = %s", f.Message)
		}

		return
	}

	t.Error("no nvidia.driver-changed finding")
}

func TestCompareVersions_FlavourSwitchShowsBothTracks(t *testing.T) {
	base := gpuRepo{
		talos: "v1.13.9", flavour: "lts",
		extensions: []string{openLTS, toolkitLTS}, patches: []string{modulesPatch},
	}
	head := base
	head.flavour = "production"
	head.extensions = []string{openProd, toolkitProd}

	b := bump(t, base, head)

	if len(b.GPUNodes) != 1 || b.GPUNodes[0].FlavourFrom != "lts" || b.GPUNodes[0].Flavour != "production" {
		t.Errorf("GPU nodes = %+v", b.GPUNodes)
	}
}

// TestCompareVersions_KubernetesDowngradeSaysHowFarBack: going back two minors is not
// called going back "a minor release".
func TestCompareVersions_KubernetesDowngradeSaysHowFarBack(t *testing.T) {
	t.Parallel()

	repo := func(k8s string) gpuRepo {
		return gpuRepo{talos: "v1.13.9", k8s: k8s, flavour: "lts", extensions: []string{openLTS, toolkitLTS}, patches: []string{modulesPatch, sysctlPatch}}
	}

	for _, tc := range []struct{ from, to, want string }{
		{"v1.36.4", "v1.35.2", "Kubernetes v1.36.4 → v1.35.2 goes back a minor release, which Kubernetes does not support"},
		{"v1.36.4", "v1.34.1", "Kubernetes v1.36.4 → v1.34.1 goes back 2 minor releases, which Kubernetes does not support"},
	} {
		b := bump(t, repo(tc.from), repo(tc.to))

		var got []string

		for _, f := range b.Findings {
			if f.Code == "versions.k8s-downgrade" {
				got = append(got, f.Message)
			}
		}

		if !slices.Equal(got, []string{tc.want}) {
			t.Errorf("%s → %s: %q, want %q", tc.from, tc.to, got, tc.want)
		}
	}
}

// A bump over a minor steps through the newest release the build knows of it: 1.13's is
// v1.13.13 in the release facts, past the extension data's v1.13.9.
func TestCompareVersions_StepsThroughTheNewestKnownPatchOfASkippedMinor(t *testing.T) {
	t.Parallel()

	base := gpuRepo{talos: "v1.12.11", k8s: "v1.35.5", flavour: "lts", extensions: []string{openLTS, toolkitLTS}, patches: []string{modulesPatch, sysctlPatch}}
	head := base
	head.talos = "v1.14.7"

	b := bump(t, base, head)
	if b.Upgrade == nil || !slices.Equal(b.Upgrade.StepThrough, []string{"v1.13.13"}) {
		t.Errorf("upgrade = %+v, want a step through v1.13.13", b.Upgrade)
	}
}

// Two minors behind: the bump lists its hops (Talos through the newest patch in between,
// then Kubernetes one minor at a time), the drivers at each Talos hop, and the findings
// that warn or refuse name the path.
func TestCompareVersions_AMoveOfTwoMinorsListsItsPath(t *testing.T) {
	t.Parallel()

	base := gpuRepo{talos: "v1.12.7", k8s: "v1.35.0", flavour: "lts", extensions: []string{openLTS, toolkitLTS}, patches: []string{modulesPatch, sysctlPatch}}
	head := base
	head.talos, head.k8s = "v1.14.7", "v1.37.1"

	b := bump(t, base, head)
	if b.Path == nil {
		t.Fatal("no path")
	}

	var hops []string

	for _, h := range b.Path.Hops {
		hops = append(hops, h.Talos+h.Kubernetes)
	}

	if want := []string{"v1.13.13", "v1.14.7", "v1.36.0", "v1.37.1"}; !slices.Equal(hops, want) {
		t.Errorf("hops = %v, want %v", hops, want)
	}

	if b.Path.RebootsPerNode != 2 {
		t.Errorf("reboots per node = %d, want 2 (one per Talos hop)", b.Path.RebootsPerNode)
	}

	if d := b.Path.Hops[1].NVIDIA; len(d) != 1 || d[0].Flavour != "lts" || d[0].Driver != "580.196.07" {
		t.Errorf("drivers at v1.14.7 = %+v, want the lts track's 580.196.07", d)
	}

	const path = "the path: Talos v1.13.13, v1.14.7, then Kubernetes v1.36.0, v1.37.1 (2 reboots per node)"

	for _, code := range []string{rules.CodeUpgradeSkipsMinor, rules.CodeK8sSkipsMinor} {
		i := slices.IndexFunc(b.Findings, func(f finding.Finding) bool { return f.Code == code })
		if i < 0 || !strings.Contains(b.Findings[i].Message, path) {
			t.Errorf("%s does not name the path %q: %+v", code, path, b.Findings)
		}
	}
}

// One safe step needs no path.
func TestCompareVersions_OneStepHasNoPath(t *testing.T) {
	t.Parallel()

	base := gpuRepo{talos: "v1.13.9", k8s: "v1.36.4", flavour: "lts", extensions: []string{openLTS, toolkitLTS}, patches: []string{modulesPatch, sysctlPatch}}
	head := base
	head.talos = "v1.14.7"

	if b := bump(t, base, head); b.Path != nil {
		t.Errorf("path = %+v, want none", b.Path)
	}
}

// On a path onto 1.15, the hop that reaches it says the Image Factory swaps the proprietary
// LTS module the track no longer builds for the open one; the hop before keeps it.
func TestCompareVersions_ThePathShowsTheOpenModuleSwapOfThe115Hop(t *testing.T) {
	t.Parallel()

	base := gpuRepo{talos: "v1.13.13", k8s: "v1.36.0", flavour: "lts", extensions: []string{nonfreeLTS, toolkitLTS}, patches: []string{modulesPatch, sysctlPatch}}
	head := base
	head.talos, head.k8s = "v1.15.0", "v1.36.0"

	b := bump(t, base, head)
	if b.Path == nil || len(b.Path.Hops) != 2 {
		t.Fatalf("path = %+v, want v1.14.7 then v1.15.0", b.Path)
	}

	var swaps []string

	for _, h := range b.Path.Hops {
		for _, d := range h.NVIDIA {
			swaps = append(swaps, h.Talos+":"+d.OpenModule)
		}
	}

	if want := []string{"v1.14.7:", "v1.15.0:nvidia-open-gpu-kernel-modules-lts"}; !slices.Equal(swaps, want) {
		t.Errorf("module swaps per hop = %q, want %q", swaps, want)
	}
}
