package rollout_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/rollout"
	"github.com/talops/talops/internal/talos"
)

const installer = "factory.talos.dev/metal-installer/376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba:v1.13.9"

func livePlan(nodes ...plan.Node) *plan.Plan {
	return &plan.Plan{Cluster: "homelab", Nodes: nodes, Hash: strings.Repeat("ab", 32)}
}

func TestEventRefusal_OnlyEventsRunningTheDefaultBranch(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		event   string
		refused bool
	}{
		{"", false},
		{"push", false},
		{"workflow_dispatch", false},
		{"schedule", false},
		{"pull_request", true},
		{"pull_request_target", true},
		{"issue_comment", true},
		{"workflow_run", true},
		{"merge_group", true},
	} {
		why := rollout.EventRefusal(tc.event)
		if (why != "") != tc.refused {
			t.Errorf("event %q: refusal %q, want refused %v", tc.event, why, tc.refused)
		}

		if tc.refused && why != "apply does not run for "+tc.event+" events: it runs on the merged commit (push, workflow_dispatch or schedule)" {
			t.Errorf("event %q: refusal %q", tc.event, why)
		}
	}
}

func TestBranchRefusal_OnlyTheDefaultBranch(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		ref, def, want string
	}{
		{"refs/heads/main", "main", ""},
		// Fails closed: a run that cannot tell is refused.
		{"", "main", "apply cannot tell that it runs on the default branch (the event names no ref or no default branch): it refuses rather than apply what may not have been reviewed"},
		{"refs/heads/wip", "", "apply cannot tell that it runs on the default branch (the event names no ref or no default branch): it refuses rather than apply what may not have been reviewed"},
		{"refs/heads/wip", "main", "apply runs on the default branch (main), not on refs/heads/wip"},
		{"refs/tags/v1", "main", "apply runs on the default branch (main), not on refs/tags/v1"},
	} {
		if got := rollout.BranchRefusal(tc.ref, tc.def); got != tc.want {
			t.Errorf("ref %q, default %q: %q, want %q", tc.ref, tc.def, got, tc.want)
		}
	}
}

func TestModes_MatchTheTalosAdapter(t *testing.T) {
	t.Parallel()

	ours := []string{string(rollout.ModeAuto), string(rollout.ModeNoReboot), string(rollout.ModeStaged), string(rollout.ModeTry)}
	if !slices.Equal(ours, talos.Modes) {
		t.Errorf("rollout modes %v, talos modes %v", ours, talos.Modes)
	}
}

func TestRefusals_EachReasonToTouchNoNode(t *testing.T) {
	t.Parallel()

	hash := strings.Repeat("ab", 32)
	update := plan.Node{Name: "n1", Role: "worker", Action: plan.Update}

	for _, tc := range []struct {
		name string
		p    rollout.Preflight
		want []string
	}{
		{
			name: "a plan matching the reviewed hash passes",
			p:    rollout.Preflight{Live: livePlan(update), Mode: rollout.ModeAuto, PlanHash: hash, ReviewedHash: hash},
		},
		{
			name: "another hash is refused, naming what it was computed against",
			p:    rollout.Preflight{Live: livePlan(update), Mode: rollout.ModeAuto, PlanHash: "cd", ReviewedHash: hash, ReviewedAgainst: "base"},
			want: []string{"the plan differs from the one reviewed: its hash against base is " + hash + ", --plan-hash is cd"},
		},
		{
			name: "a broken node hides the plan's actions",
			p: rollout.Preflight{
				Live: livePlan(plan.Node{Name: "n1", Action: plan.Create}), Mode: rollout.ModeAuto,
				Running: []plan.NodeState{{Name: "n1", Broken: "not readable over the Talos API: down"}},
			},
			want: []string{"node n1: not readable over the Talos API: down"},
		},
		{
			name: "a role change is refused",
			p: rollout.Preflight{
				Live: livePlan(update), Mode: rollout.ModeAuto,
				Running: []plan.NodeState{{Name: "n1", Role: "controlplane"}},
			},
			want: []string{"node n1 runs as controlplane and talops.yaml makes it a worker: Talos cannot change a node's role in place; reset and re-create it by hand"},
		},
		{
			name: "a node too old for the target in one upgrade is refused",
			p: rollout.Preflight{
				Live: livePlan(update), Mode: rollout.ModeAuto, TargetVersion: "v1.13.9",
				Running: []plan.NodeState{{Name: "n1", TalosVersion: "v1.10.7"}},
			},
			want: []string{"node n1 runs v1.10.7: v1.10.7 cannot upgrade to v1.13.9 directly: the host must run at least v1.11.0 first"},
		},
		{
			name: "a new node is created, a removed one only with --allow-remove",
			p:    rollout.Preflight{Live: livePlan(plan.Node{Name: "n1", Action: plan.Create}, plan.Node{Name: "n2", Action: plan.Remove}), Mode: rollout.ModeAuto},
			want: []string{
				"node n2 is not in talops.yaml: apply removes a node (drain, reset, delete its Kubernetes Node) only with --allow-remove (the action's input allow-remove: true); or put it back in talops.yaml",
			},
		},
		{
			name: "a new node takes its first config as it is, not staged or tried",
			p:    rollout.Preflight{Live: livePlan(plan.Node{Name: "n1", Action: plan.Create}), Mode: rollout.ModeStaged},
			want: []string{"node n1 is new: its first config is taken as it is, which --mode staged does not do; use --mode auto"},
		},
		{
			name: "an upgrade needs mode auto",
			p:    rollout.Preflight{Live: livePlan(plan.Node{Name: "n1", Action: plan.Upgrade, Upgrade: &plan.InstallerChange{ToInstaller: installer}}), Mode: rollout.ModeStaged},
			want: []string{"node n1 needs an upgrade, which reboots it: --mode staged does not; use --mode auto"},
		},
		{
			name: "an upgrade without an installer is refused",
			p:    rollout.Preflight{Live: livePlan(plan.Node{Name: "n1", Action: plan.Upgrade}), Mode: rollout.ModeAuto},
			want: []string{"node n1: the plan upgrades it but names no installer"},
		},
		{
			name: "a reboot cannot happen in try mode",
			p:    rollout.Preflight{Live: livePlan(plan.Node{Name: "n1", Action: plan.Update, NeedsReboot: true}), Mode: rollout.ModeTry},
			want: []string{"node n1: its change needs a reboot, which --mode try cannot do; use --mode auto or staged"},
		},
		{
			name: "a reboot may be staged",
			p:    rollout.Preflight{Live: livePlan(plan.Node{Name: "n1", Action: plan.Update, NeedsReboot: true}), Mode: rollout.ModeStaged},
		},
		{
			name: "drift beyond the review is refused even beside a broken node",
			p: rollout.Preflight{
				Live: livePlan(plan.Node{Name: "n1", Action: plan.Reboot}), Mode: rollout.ModeAuto,
				Running:  []plan.NodeState{{Name: "n2", Broken: "gone"}},
				Reviewed: livePlan(plan.Node{Name: "n1", Action: plan.Update}),
			},
			want: []string{"node n2: gone", "node n1 needs reboot now, but the reviewed plan said update: it drifted since; review a new plan (talops plan --live)"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			if got := rollout.Refusals(tc.p); !slices.Equal(got, tc.want) {
				t.Errorf("refusals\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestRefusals_RemovalsAreRefusedBeforeAnyCall(t *testing.T) {
	t.Parallel()

	cp := func(name string, a plan.Action) plan.Node {
		return plan.Node{Name: name, Role: "controlplane", Action: a}
	}
	running := func(names ...string) []plan.NodeState {
		var out []plan.NodeState
		for _, n := range names {
			out = append(out, plan.NodeState{Name: n, Role: "controlplane", Address: "10.0.0." + n[len(n)-1:]})
		}

		return out
	}
	worker := plan.Node{Name: "w1", Role: "worker", Action: plan.Remove}
	workerRunning := plan.NodeState{Name: "w1", Role: "worker", Address: "10.0.0.9"}

	for _, tc := range []struct {
		name string
		p    rollout.Preflight
		want []string
		// unreviewed runs the case without a plan hash; the others apply the live plan
		// whose hash was reviewed (plan --live).
		unreviewed bool
	}{
		{
			name: "RemovingAWorkerWithAllowRemovePasses",
			p:    rollout.Preflight{Live: livePlan(cp("cp1", plan.Noop), worker), Running: append(running("cp1"), workerRunning), AllowRemove: true, EtcdMembers: []string{"cp1"}},
		},
		{
			name: "ANodeFoundOnlyByNameCannotBeReset",
			p:    rollout.Preflight{Live: livePlan(worker), Running: []plan.NodeState{{Name: "w1", Role: "worker"}}, AllowRemove: true},
			want: []string{"node w1: talops does not know its address (it was found only by name), so it cannot reset it; reset it by hand (talosctl reset), or put it back in talops.yaml"},
		},
		{
			name: "ADeadNodeFoundOnlyByNameIsRemovedByName",
			p:    rollout.Preflight{Live: livePlan(cp("cp1", plan.Noop), plan.Node{Name: "w1", Role: "worker", Action: plan.Remove, Unreachable: true}), Running: append(running("cp1"), plan.NodeState{Name: "w1", Role: "worker", Unreachable: true}), AllowRemove: true, EtcdMembers: []string{"cp1"}},
		},
		{
			name: "ADeadControlPlaneOfTwoCannotBeRemovedEither",
			p:    rollout.Preflight{Live: livePlan(cp("cp1", plan.Noop), plan.Node{Name: "cp2", Role: "controlplane", Action: plan.Remove, Unreachable: true}), Running: running("cp1", "cp2"), AllowRemove: true, EtcdMembers: []string{"cp1", "cp2"}},
			want: []string{"cp2 does not answer, and etcd's 1 other members are fewer than its quorum of 2: etcd has lost its quorum; recover it from a snapshot (talosctl bootstrap --recover-from) before removing cp2"},
		},
		{
			name: "OneDeadControlPlaneOfThreeMayGo",
			p:    rollout.Preflight{Live: livePlan(cp("cp1", plan.Noop), cp("cp2", plan.Noop), plan.Node{Name: "cp3", Role: "controlplane", Action: plan.Remove, Unreachable: true}), Running: running("cp1", "cp2", "cp3"), AllowRemove: true, EtcdMembers: []string{"cp1", "cp2", "cp3"}},
		},
		{
			name: "OneOfThreeControlPlanesMayLeave",
			p:    rollout.Preflight{Live: livePlan(cp("cp1", plan.Noop), cp("cp2", plan.Noop), cp("cp3", plan.Remove)), Running: running("cp1", "cp2", "cp3"), AllowRemove: true, EtcdMembers: []string{"cp1", "cp2", "cp3"}},
		},
		{
			name: "TwoOfThreeControlPlanesWouldBreakQuorum",
			p:    rollout.Preflight{Live: livePlan(cp("cp1", plan.Noop), cp("cp2", plan.Remove), cp("cp3", plan.Remove)), Running: running("cp1", "cp2", "cp3"), AllowRemove: true, EtcdMembers: []string{"cp1", "cp2", "cp3"}},
			want: []string{"removing cp2, cp3 would leave 1 of etcd's 3 members, fewer than its quorum of 2: remove at most 1 control plane per apply"},
		},
		{
			name: "OneOfTwoLeavesTooFew",
			p:    rollout.Preflight{Live: livePlan(cp("cp1", plan.Noop), cp("cp2", plan.Remove)), Running: running("cp1", "cp2"), AllowRemove: true},
			want: []string{"removing cp2 would leave 1 of etcd's 2 members, fewer than its quorum of 2: add a control plane first, in its own apply"},
		},
		{
			name: "TheLastControlPlaneIsNeverRemoved",
			p:    rollout.Preflight{Live: livePlan(cp("cp1", plan.Remove), worker), Running: append(running("cp1"), workerRunning), AllowRemove: true, EtcdMembers: []string{"cp1"}},
			want: []string{"removing cp1 would leave etcd no member: talops never removes the last control plane"},
		},
		{
			name: "NewControlPlanesJoinBeforeTheOldOneLeaves",
			p:    rollout.Preflight{Live: livePlan(cp("cp1", plan.Remove), cp("cp2", plan.Create), cp("cp3", plan.Create)), Running: running("cp1"), AllowRemove: true, EtcdMembers: []string{"cp1"}},
		},
		{
			name: "ARemovalTheReviewedPlanDoesNotSayIsRefused",
			p:    rollout.Preflight{Live: livePlan(cp("cp1", plan.Noop), worker), Running: append(running("cp1"), workerRunning), AllowRemove: true, Reviewed: livePlan(cp("cp1", plan.Noop))},
			want: []string{"node w1 would be removed, but the reviewed plan does not remove it: review a new plan (talops plan --live)"},
		},
		{
			// A node found running that talops.yaml never named (or a removal nobody saw):
			// without a review, --allow-remove alone removes nothing.
			name:       "ARemovalNoReviewedPlanSaysIsRefused",
			p:          rollout.Preflight{Live: livePlan(cp("cp1", plan.Noop), worker), Running: append(running("cp1"), workerRunning), AllowRemove: true, EtcdMembers: []string{"cp1"}},
			unreviewed: true,
			want:       []string{"node w1 would be removed, but no reviewed plan says so: review the plan that removes it (talops plan --live) and apply with its hash (--plan-hash H)"},
		},
		{
			name: "ARemovalTheReviewedPlanSaysPasses",
			p:    rollout.Preflight{Live: livePlan(cp("cp1", plan.Noop), worker), Running: append(running("cp1"), workerRunning), AllowRemove: true, EtcdMembers: []string{"cp1"}, Reviewed: livePlan(cp("cp1", plan.Noop), worker)},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			if !tc.unreviewed && tc.p.Reviewed == nil {
				tc.p.PlanHash, tc.p.ReviewedHash = "reviewed", "reviewed"
			}

			tc.p.Mode = rollout.ModeAuto
			if got := rollout.Refusals(tc.p); !slices.Equal(got, tc.want) {
				t.Errorf("refusals\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestSteps_ARemovedNodeIsReachedWhereItWasFound(t *testing.T) {
	t.Parallel()

	got, err := rollout.Steps(livePlan(plan.Node{Name: "w9", Role: "worker", Action: plan.Remove}), []plan.NodeState{{Name: "w9", Address: "10.0.0.9"}}, nil)
	if err != nil || len(got) != 1 || got[0].Address != "10.0.0.9" {
		t.Errorf("steps %+v, %v", got, err)
	}
}

func TestBeyondReview_OnlyMoreDisruptiveActionsThanReviewed(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		live, reviewed plan.Action
		refused        bool
	}{
		{plan.Noop, plan.Noop, false},
		{plan.Update, plan.Noop, true},
		{plan.Reboot, plan.Update, true},
		{plan.Upgrade, plan.Reboot, true},
		{plan.Update, plan.Upgrade, false},
		{plan.Noop, plan.Update, false},
		// A node created live was new in the review too; one running then was reinstalled since.
		{plan.Create, plan.Create, false},
		{plan.Create, plan.Noop, true},
		{plan.Create, plan.Upgrade, true},
		// Remove is refused on its own; it is never ranked.
		{plan.Noop, plan.Remove, false},
	} {
		got := rollout.BeyondReview(livePlan(plan.Node{Name: "n1", Action: tc.live}), livePlan(plan.Node{Name: "n1", Action: tc.reviewed}))
		if (len(got) > 0) != tc.refused {
			t.Errorf("live %s, reviewed %s: %q, want refused %v", tc.live, tc.reviewed, got, tc.refused)
		}
	}

	if got := rollout.BeyondReview(livePlan(plan.Node{Name: "n1", Action: plan.Upgrade}), nil); got != nil {
		t.Errorf("without a reviewed plan: %q", got)
	}

	if got := rollout.BeyondReview(livePlan(plan.Node{Name: "new", Action: plan.Upgrade}), livePlan()); got != nil {
		t.Errorf("a node the review did not plan: %q", got)
	}
}

func TestSteps_PairNodesWithAddressConfigVersionAndTarget(t *testing.T) {
	t.Parallel()

	live := livePlan(
		plan.Node{Name: "n1", Action: plan.Update},
		plan.Node{Name: "n2", Action: plan.Upgrade, Upgrade: &plan.InstallerChange{ToInstaller: installer}},
	)

	got, err := rollout.Steps(live,
		[]plan.NodeState{{Name: "n1", TalosVersion: "v1.13.8"}, {Name: "n2", TalosVersion: "v1.13.0"}},
		[]rollout.Desired{{Name: "n1", Address: "10.0.0.1", Config: []byte("a")}, {Name: "n2", Address: "10.0.0.2", Config: []byte("b")}})
	if err != nil {
		t.Fatal(err)
	}

	if len(got) != 2 || got[0].Address != "10.0.0.1" || string(got[0].Config) != "a" || got[0].Version != "v1.13.8" || got[0].Upgrade != nil {
		t.Fatalf("first step %+v", got[0])
	}

	want := rollout.Target{Image: installer, Version: "v1.13.9", SchematicID: "376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba"}
	if got[1].Upgrade == nil || *got[1].Upgrade != want || got[1].Version != "v1.13.0" {
		t.Fatalf("second step %+v, upgrade %+v", got[1], got[1].Upgrade)
	}

	if _, err := rollout.Steps(livePlan(plan.Node{Name: "n1", Action: plan.Upgrade}), nil, nil); err == nil {
		t.Error("an upgrade without an installer made a step")
	}
}

func TestUpgradeTarget_InstallerWithoutTagIsRefused(t *testing.T) {
	t.Parallel()

	_, err := rollout.UpgradeTarget(plan.Node{Name: "n1", Upgrade: &plan.InstallerChange{ToInstaller: "ghcr.io/siderolabs/installer"}})
	if err == nil || err.Error() != "node n1: installer ghcr.io/siderolabs/installer names no Talos version tag" {
		t.Errorf("error %v", err)
	}
}

func TestSteps_NewNodesAnswerWithTheDesiredVersionAndTheFirstControlPlaneIsBootstrapped(t *testing.T) {
	t.Parallel()

	live := livePlan(
		plan.Node{Name: "cp1", Role: "controlplane", Action: plan.Create},
		plan.Node{Name: "cp2", Role: "controlplane", Action: plan.Create},
	)
	live.Bootstrap = "cp1"

	got, err := rollout.Steps(live, nil, []rollout.Desired{{Name: "cp1", Version: "v1.14.1"}, {Name: "cp2", Version: "v1.14.1"}})
	if err != nil {
		t.Fatal(err)
	}

	if !got[0].Bootstrap || got[1].Bootstrap || got[0].Version != "v1.14.1" || got[1].Version != "v1.14.1" {
		t.Errorf("steps %+v", got)
	}
}

func TestRefusals_OnlyTheSelectedNodesAreJudged(t *testing.T) {
	t.Parallel()

	p := rollout.Preflight{
		Live:    livePlan(plan.Node{Name: "n1", Action: plan.Update}, plan.Node{Name: "n2", Action: plan.Remove}),
		Running: []plan.NodeState{{Name: "n1"}, {Name: "n2", Broken: "not readable over the Talos API: down"}},
		Mode:    rollout.ModeAuto, PlanHash: "reviewed", ReviewedHash: "reviewed",
		Only: map[string]bool{"n1": true},
	}

	if got := rollout.Refusals(p); len(got) != 0 {
		t.Errorf("a down or removed node that is not selected refuses: %q", got)
	}

	p.PlanHash = "other"
	if got := rollout.Refusals(p); len(got) != 1 || !strings.HasPrefix(got[0], "the plan differs from the one reviewed") {
		t.Errorf("the hash must still cover the whole plan: %q", got)
	}
}

// Each option that widens what apply does is allowed when the reviewed talops.yaml
// declares it and refused when only the command line gives it; options that narrow pass.
func TestRefusals_OptionsTheReviewedPlanDidNotDeclare(t *testing.T) {
	t.Parallel()

	hash := strings.Repeat("ab", 32)
	no := false
	update := plan.Node{Name: "n1", Role: "worker", Action: plan.Update}

	for _, tc := range []struct {
		name     string
		given    rollout.Choices
		declared *cluster.ApplyOptions
		want     string
	}{
		{"allow-remove declared", rollout.Choices{AllowRemove: true}, &cluster.ApplyOptions{AllowRemove: true}, ""},
		{"allow-remove not declared", rollout.Choices{AllowRemove: true}, nil, "--allow-remove: the reviewed plan did not allow removing nodes: declare apply.allowRemove: true in talops.yaml and have it reviewed"},
		{"no-drain declared", rollout.Choices{NoDrain: true}, &cluster.ApplyOptions{Drain: &no}, ""},
		{"no-drain not declared", rollout.Choices{NoDrain: true}, &cluster.ApplyOptions{}, "--no-drain: the reviewed plan did not allow rebooting and upgrading nodes without a drain: declare apply.drain: false in talops.yaml and have it reviewed"},
		{"no-lock declared", rollout.Choices{NoLock: true}, &cluster.ApplyOptions{Lock: &no}, ""},
		{"no-lock not declared", rollout.Choices{NoLock: true}, nil, "--no-lock: the reviewed plan did not allow applying without the apply lock: declare apply.lock: false in talops.yaml and have it reviewed"},
		{"ignore-window declared", rollout.Choices{IgnoreWindow: true}, &cluster.ApplyOptions{IgnoreWindow: true}, ""},
		{"ignore-window not declared", rollout.Choices{IgnoreWindow: true}, nil, "--ignore-window: the reviewed plan did not allow applying outside the maintenance windows: declare apply.ignoreWindow: true in talops.yaml and have it reviewed"},
		{"no-etcd-backup declared", rollout.Choices{NoEtcdBackup: true}, &cluster.ApplyOptions{EtcdBackup: &no}, ""},
		{"no-etcd-backup not declared", rollout.Choices{NoEtcdBackup: true}, nil, "--no-etcd-backup: the reviewed plan did not allow changing control planes without an etcd snapshot: declare apply.etcdBackup: false in talops.yaml and have it reviewed"},
		{"proxmox-vms declared", rollout.Choices{ProxmoxVMs: true}, &cluster.ApplyOptions{ProxmoxVMs: true}, ""},
		{"proxmox-vms not declared", rollout.Choices{ProxmoxVMs: true}, nil, "--proxmox-vms: the reviewed plan did not allow creating and starting Proxmox VMs: declare apply.proxmoxVMs: true in talops.yaml and have it reviewed"},
		{"proxmox-reset declared", rollout.Choices{ProxmoxReset: true}, &cluster.ApplyOptions{ProxmoxReset: true}, ""},
		{"proxmox-reset not declared", rollout.Choices{ProxmoxReset: true}, nil, "--proxmox-reset: the reviewed plan did not allow resetting Proxmox VMs: declare apply.proxmoxReset: true in talops.yaml and have it reviewed"},
		{"mode staged declared", rollout.Choices{Mode: rollout.ModeStaged}, &cluster.ApplyOptions{Mode: "staged"}, ""},
		{"mode staged not declared", rollout.Choices{Mode: rollout.ModeStaged}, nil, "--mode staged: the reviewed plan applies in mode auto: declare apply.mode: staged in talops.yaml and have it reviewed"},
		{"mode try not declared", rollout.Choices{Mode: rollout.ModeTry}, nil, "--mode try: the reviewed plan applies in mode auto: declare apply.mode: try in talops.yaml and have it reviewed"},
		{"mode auto where staged is declared", rollout.Choices{Mode: rollout.ModeAuto}, &cluster.ApplyOptions{Mode: "staged"}, "--mode auto: the reviewed plan applies in mode staged: declare apply.mode: auto in talops.yaml and have it reviewed"},
		{"mode auto, the default", rollout.Choices{Mode: rollout.ModeAuto}, nil, ""},
		{"mode no-reboot narrows", rollout.Choices{Mode: rollout.ModeNoReboot}, nil, ""},
		{"nodes narrow", rollout.Choices{Nodes: []string{"n1"}}, nil, ""},
		{"declared, not given", rollout.Choices{}, &cluster.ApplyOptions{Drain: &no, IgnoreWindow: true}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			p := rollout.Preflight{
				Live: livePlan(update), PlanHash: hash, ReviewedHash: hash,
				Given: tc.given, Declared: rollout.DeclaredChoices(tc.declared),
			}
			p.Mode = tc.given.Merged(p.Declared).Mode

			var want []string
			if tc.want != "" {
				want = []string{tc.want}
			}

			if got := rollout.Refusals(p); !slices.Equal(got, want) {
				t.Errorf("refusals\n got %q\nwant %q", got, want)
			}

			// Without a reviewed plan nothing was reviewed to widen: the options pass.
			p.PlanHash = ""
			if got := rollout.OptionRefusals(p); got != nil {
				t.Errorf("without a plan hash: refusals %q", got)
			}
		})
	}
}
