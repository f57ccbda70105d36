package plan_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/mask"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/secrets"
	"github.com/talops/talops/internal/testlab"
)

func state(t *testing.T, files cluster.MapFiles) (plan.State, *secrets.Bundle) {
	t.Helper()

	c := testlab.Load(t, files)

	b, err := (&secrets.Loader{Getenv: testlab.NoEnv, Now: time.Now}).Load(c)
	if err != nil {
		t.Fatal(err)
	}

	ids, err := render.SchematicIDs(c)
	if err != nil {
		t.Fatal(err)
	}

	s := plan.State{TalosVersion: c.Spec.TalosVersion, SecretsFingerprint: "same", Settings: plan.ClusterSettings(c)}

	for _, r := range render.All(context.Background(), c, b, render.Options{Installer: render.FactoryInstaller(ids)}) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}

		s.Nodes = append(s.Nodes, plan.NodeState{
			Name: r.Name, Role: r.Machine.Node.Role, Schematic: r.Machine.Node.Schematic, Installer: r.Machine.Installer, Config: r.Machine.Config,
			Settings: plan.NodeSettings(c.Spec.Nodes[c.NodeIndex(r.Name)]),
		})
	}

	return s, b
}

// computeInChunks plans as a streamed plan does: desired's nodes size at a time with
// current's nodes of the same names, then the nodes only current has.
func computeInChunks(t *testing.T, current, desired plan.State, masker *mask.Masker, size int) *plan.Plan {
	t.Helper()

	c := plan.NewComputation("homelab", current, desired, masker)

	left := map[string]plan.NodeState{}
	for _, n := range current.Nodes {
		left[n.Name] = n
	}

	for chunk := range slices.Chunk(desired.Nodes, size) {
		var same []plan.NodeState

		for _, n := range chunk {
			if cn, ok := left[n.Name]; ok {
				same = append(same, cn)
				delete(left, n.Name)
			}
		}

		if err := c.Nodes(context.Background(), same, chunk); err != nil {
			t.Fatal(err)
		}
	}

	var gone []plan.NodeState

	for _, n := range current.Nodes {
		if _, ok := left[n.Name]; ok {
			gone = append(gone, n)
		}
	}

	if err := c.Removed(context.Background(), gone); err != nil {
		t.Fatal(err)
	}

	return c.Plan()
}

func compute(t *testing.T, current, desired cluster.MapFiles) *plan.Plan {
	t.Helper()

	cur, b := state(t, current)
	des, _ := state(t, desired)

	p, err := plan.Compute(context.Background(), "homelab", cur, des, mask.New(b.Values()...))
	if err != nil {
		t.Fatal(err)
	}

	for _, size := range []int{1, 2} {
		if got := computeInChunks(t, cur, des, mask.New(b.Values()...), size); !reflect.DeepEqual(got, p) {
			t.Errorf("planned %d node(s) at a time:\n%+v\nwant, as Compute over every node:\n%+v", size, got, p)
		}
	}

	return p
}

func actions(p *plan.Plan) string {
	var out []string
	for _, n := range p.Nodes {
		out = append(out, n.Name+"="+string(n.Action))
	}

	return strings.Join(out, " ")
}

func TestCompute_EveryKindOfChange(t *testing.T) {
	p := compute(t, testlab.Files(t), testlab.Changed(t))

	want := "k8s-master=update k8s-node1=noop k8s-node2=reboot k8s-node3=upgrade k8s-node5=create k8s-node4=remove"
	if got := actions(p); got != want {
		t.Fatalf("actions\n got %s\nwant %s", got, want)
	}

	if got := p.Summary(); got != "Plan: 6 nodes — 1 create, 1 upgrade, 1 reboot, 1 update, 1 remove, 1 unchanged; apply needs --allow-remove" {
		t.Errorf("summary = %q", got)
	}

	byName := map[string]plan.Node{}
	for _, n := range p.Nodes {
		byName[n.Name] = n
	}

	for name, want := range map[string]string{
		"k8s-master": "machine.sysctls changed: applied live",
		"k8s-node2":  "machine.files changed: Talos writes files only at boot, so the change takes effect after a reboot; Talos ≥ 1.14 never reboots on apply: talops reboots the node",
		"k8s-node3":  "installer schematic base → storage",
	} {
		if got := strings.Join(byName[name].Reasons, "; "); !strings.Contains(got, want) {
			t.Errorf("%s reasons %q lack %q", name, got, want)
		}
	}

	if !strings.Contains(byName["k8s-master"].Diff, `+        vm.max_map_count: "262144"`) {
		t.Errorf("k8s-master diff:\n%s", byName["k8s-master"].Diff)
	}

	if byName["k8s-node1"].Diff != "" {
		t.Errorf("unchanged node has a diff:\n%s", byName["k8s-node1"].Diff)
	}
}

func TestCompute_TalosBumpUpgradesEveryNode(t *testing.T) {
	current := testlab.Files(t)
	testlab.SetVersions(t, current, "v1.14.6", "")

	p := compute(t, current, testlab.Files(t))

	if got := p.Summary(); got != "Plan: 5 nodes — 5 upgrades (v1.14.6 → v1.14.7)" {
		t.Errorf("summary = %q", got)
	}

	if p.Nodes[0].Reasons[0] != "Talos v1.14.6 → v1.14.7" {
		t.Errorf("reasons = %q", p.Nodes[0].Reasons)
	}
}

func TestCompute_UpgradeAndConfigChangeOnSameNodeSaysBoth(t *testing.T) {
	current := testlab.Files(t)
	testlab.SetVersions(t, current, "v1.14.6", "")

	desired := testlab.Files(t)
	testlab.Edit(t, desired, "patches/worker.yaml", "node-role.kubernetes.io/worker: \"\"", "node-role.kubernetes.io/worker: \"\"\n    tier: gpu")

	n := compute(t, current, desired).Nodes[1]
	if n.Action != plan.Upgrade || !n.ConfigChanged || !strings.Contains(strings.Join(n.Reasons, "; "), "machine.nodeLabels changed: applied live") {
		t.Errorf("node = %+v", n)
	}
}

func TestCompute_From114ApplyNeverRebootsButTalopsSaysWhenAChangeNeedsOne(t *testing.T) {
	current := testlab.Files(t)
	desired := testlab.Files(t)

	for _, f := range []cluster.MapFiles{current, desired} {
		testlab.SetVersions(t, f, "v1.14.1", "")
	}

	// A file: Talos writes machine.files only in its boot sequence, on every release.
	desired["nodes/k8s-node2.yaml"] = append([]byte("machine:\n  files:\n    - path: /var/etc/motd\n      permissions: 0o644\n      op: create\n      content: hello\n---\n"), desired["nodes/k8s-node2.yaml"]...)
	// Environment variables: take effect only after a reboot.
	desired["nodes/k8s-node3.yaml"] = append([]byte("machine:\n  env:\n    HTTP_PROXY: http://10.0.20.1:3128\n---\n"), desired["nodes/k8s-node3.yaml"]...)

	p := compute(t, current, desired)

	if got := actions(p); got != "k8s-master=noop k8s-node1=noop k8s-node2=reboot k8s-node3=reboot k8s-node4=noop" {
		t.Fatalf("actions = %s", got)
	}

	for _, n := range p.Nodes[2:4] {
		if r := strings.Join(n.Reasons, "; "); !strings.Contains(r, "Talos ≥ 1.14 never reboots on apply: talops reboots the node") {
			t.Errorf("%s reasons = %q", n.Name, r)
		}
	}
}

func TestCompute_RotatedSecretsShowAsAReasonWithoutValues(t *testing.T) {
	cur, b := state(t, testlab.Files(t))
	des, _ := state(t, testlab.Files(t))
	des.SecretsFingerprint = "rotated"

	p, err := plan.Compute(context.Background(), "homelab", cur, des, mask.New(b.Values()...))
	if err != nil {
		t.Fatal(err)
	}

	if !strings.Contains(strings.Join(p.Nodes[0].Reasons, ";"), "cluster secrets changed") {
		t.Errorf("reasons = %q", p.Nodes[0].Reasons)
	}
}

func TestCompute_NoSecretValueInAnyDiff(t *testing.T) {
	// Creating and removing nodes diffs whole configs: the worst case for leaks.
	current := testlab.Files(t)
	desired := testlab.Changed(t)

	_, b := state(t, current)
	p := compute(t, current, desired)

	for _, n := range p.Nodes {
		for _, v := range b.Values() {
			if strings.Contains(n.Diff, v) {
				t.Errorf("%s diff contains a secret value", n.Name)
			}
		}
	}

	if !strings.Contains(p.Nodes[4].Diff, plan.Redacted) {
		t.Error("the created node's diff shows no redacted field: redaction did not run")
	}
}

func TestHash_ChangesWithContentOnly(t *testing.T) {
	a := compute(t, testlab.Files(t), testlab.Changed(t))
	b := compute(t, testlab.Files(t), testlab.Changed(t))

	if a.Hash != b.Hash || len(a.Hash) != 64 {
		t.Errorf("hashes of the same plan differ: %s %s", a.Hash, b.Hash)
	}

	c := compute(t, testlab.Files(t), testlab.Files(t))
	if c.Hash == a.Hash || c.HasChanges() {
		t.Errorf("a plan without changes: hash %s, changes %v", c.Hash, c.HasChanges())
	}
}

func TestCompute_NodeRunningAnOlderTalosUpgradesFromItsOwnVersion(t *testing.T) {
	cur, b := state(t, testlab.Files(t))
	des, _ := state(t, testlab.Files(t))

	// As read from the nodes: one runs an older Talos than the others.
	cur.Nodes[1].TalosVersion = "v1.14.6"
	cur.Nodes[1].Installer = strings.Replace(cur.Nodes[1].Installer, ":v1.14.7", ":v1.14.6", 1)

	p, err := plan.Compute(context.Background(), "homelab", cur, des, mask.New(b.Values()...))
	if err != nil {
		t.Fatal(err)
	}

	n := p.Nodes[1]
	if n.Action != plan.Upgrade || n.Upgrade.FromVersion != "v1.14.6" || n.Upgrade.ToVersion != "v1.14.7" || strings.Join(n.Reasons, "; ") != "Talos v1.14.6 → v1.14.7" {
		t.Errorf("%s: %s %+v %q", n.Name, n.Action, n.Upgrade, n.Reasons)
	}

	if got := actions(p); strings.Count(got, "noop") != 4 {
		t.Errorf("actions: %s", got)
	}
}

// TestCompute_AnInterruptedPlanStopsWithTheContextsError: a plan whose context has ended
// plans no more nodes and says why, instead of finishing hundreds of them.
func TestCompute_AnInterruptedPlanStopsWithTheContextsError(t *testing.T) {
	t.Parallel()

	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	state := plan.State{Nodes: []plan.NodeState{{Name: "n1", Role: "worker"}, {Name: "n2", Role: "worker"}}}

	p, err := plan.Compute(ctx, "lab", state, state, nil)
	if !errors.Is(err, context.Canceled) || p != nil {
		t.Errorf("plan %v, error %v: want no plan and context.Canceled", p, err)
	}
}

func TestCompute_RedactedKeyShowsAPlainMarkerNotItsBase64(t *testing.T) {
	// A control plane's CA keys are bytes: redacted, they would encode as the base64 of the
	// marker ("PHJlZGFjdGVkPg=="), which reads like a real key.
	des, b := state(t, testlab.Files(t))

	p, err := plan.Compute(context.Background(), "homelab", plan.State{}, des, mask.New(b.Values()...))
	if err != nil {
		t.Fatal(err)
	}

	cp := p.Nodes[0]
	if cp.Role != "controlplane" || cp.Action != plan.Create {
		t.Fatalf("first node = %s %s, want a created control plane", cp.Name, cp.Action)
	}

	if strings.Contains(cp.Diff, "PHJlZGFjdGVkPg==") {
		t.Error("a redacted key shows as the base64 of the marker")
	}

	if !strings.Contains(cp.Diff, "key: "+plan.Redacted+"\n") {
		t.Errorf("no key shows the plain marker:\n%s", cp.Diff)
	}
}
