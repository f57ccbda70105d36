package cli_test

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/talos/talostest"
	"github.com/talops/talops/internal/testlab"
)

// onVersion starts every node of the lab on Talos v, one release behind talops.yaml's.
func onVersion(v string, more func(*talostest.Node)) func(*talostest.Node) {
	return func(n *talostest.Node) {
		n.Version = v
		if more != nil {
			more(n)
		}
	}
}

func labIDs(t *testing.T, l *applyLab) map[string]string {
	t.Helper()

	ids, err := render.SchematicIDs(testlab.Load(t, l.files))
	if err != nil {
		t.Fatal(err)
	}

	return ids
}

// lifecycleCalls are the calls of one node's upgrade through LifecycleService.
func lifecycleCalls(name string) []string {
	return []string{name + " Pull", name + " LifecycleUpgrade", name + " Reboot"}
}

func TestApply_ATalosBumpUpgradesTheControlPlaneThenTheWorkersAndVerifiesVersionAndSchematic(t *testing.T) {
	l := newApplyLab(t, nil, onVersion("v1.13.8", nil))
	ids := labIDs(t, l)

	if err := l.apply("--format", "json"); err != nil {
		t.Fatalf("apply: %v\n%s%s", err, l.h.stderr.String(), l.h.stdout.String())
	}

	var want []string
	for _, name := range labNodes {
		want = append(want, lifecycleCalls(name)...)
	}

	if got := l.journal.Entries(); !slices.Equal(got, want) {
		t.Errorf("calls:\n%s", strings.Join(got, "\n"))
	}

	for _, name := range labNodes {
		wantID := ids["base"]
		if name == "k8s-node1" {
			wantID = ids["gpu"]
		}

		if v, id := l.nodes[name].Running(); v != "v1.13.9" || id != wantID {
			t.Errorf("%s runs %s %s", name, v, id)
		}

		if up := l.nodes[name].Upgrades(); len(up) != 1 || up[0].API != "lifecycle" || !strings.HasSuffix(up[0].Image, "/"+wantID+":v1.13.9") {
			t.Errorf("%s upgrades: %+v", name, up)
		}
	}

	r := l.report(t)
	if r.Summary.Line != "Apply: homelab — 5 applied" {
		t.Errorf("summary: %s", r.Summary.Line)
	}

	if n := r.Nodes[0]; n.Action != "upgrade" || !n.Rebooted || n.Detail != "upgraded to Talos v1.13.9, schematic "+ids["base"][:12]+", rebooted, healthy" {
		t.Errorf("k8s-master: %+v", n)
	}

	// The nodes now run what talops.yaml says: a second run changes nothing.
	if err := l.apply("--format", "json"); err != nil || l.report(t).Summary.Line != "Apply: homelab — 5 skipped" {
		t.Errorf("second run: %v %s", err, l.h.stdout.String())
	}
}

func TestApply_ASchematicChangeUpgradesOnlyThatNode(t *testing.T) {
	l := newApplyLab(t, nil, nil)
	// k8s-node3 moves to a new storage schematic.
	l.files["schematics/storage.yaml"] = []byte("customization:\n  systemExtensions:\n    officialExtensions:\n      - siderolabs/iscsi-tools\n      - siderolabs/nfs-utils\n")
	testlab.Edit(t, l.files, "talops.yaml", "  gpu: schematics/gpu.yaml\n", "  gpu: schematics/gpu.yaml\n  storage: schematics/storage.yaml\n")
	testlab.Edit(t, l.files, "talops.yaml", "    schematic: base\n    installDisk: /dev/sda\n    patches: [nodes/k8s-node3.yaml]", "    schematic: storage\n    installDisk: /dev/sda\n    patches: [nodes/k8s-node3.yaml]")
	ids := labIDs(t, l)

	if err := l.apply("--format", "json"); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	// The config names the new installer too: it is applied once the node runs it.
	if got := l.journal.Entries(); !slices.Equal(got, append(lifecycleCalls("k8s-node3"), "k8s-node3 ApplyConfiguration AUTO")) {
		t.Errorf("calls: %q", got)
	}

	if v, id := l.nodes["k8s-node3"].Running(); v != "v1.13.9" || id != ids["storage"] || id == "" {
		t.Errorf("k8s-node3 runs %s %s", v, id)
	}

	if got := outcomes(l.report(t)); !slices.Equal(got, []string{
		"k8s-master noop skipped", "k8s-node1 noop skipped", "k8s-node2 noop skipped", "k8s-node3 upgrade applied", "k8s-node4 noop skipped",
	}) {
		t.Errorf("outcomes: %q", got)
	}
}

func TestApply_ANodeBackOnItsOldVersionStopsTheRollout(t *testing.T) {
	l := newApplyLab(t, nil, onVersion("v1.13.8", func(n *talostest.Node) {
		n.BootsOldVersion = n.Name == "k8s-node2"
	}))
	ids := labIDs(t, l)

	err := l.apply("--format", "json")
	if cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit %d", cli.ExitCode(err))
	}

	r := l.report(t)
	if got := outcomes(r); !slices.Equal(got, []string{
		"k8s-master upgrade applied", "k8s-node1 upgrade applied", "k8s-node2 upgrade failed",
		"k8s-node3 upgrade not attempted", "k8s-node4 upgrade not attempted",
	}) || !r.Summary.Failed {
		t.Errorf("outcomes: %q", got)
	}

	want := "upgrade: the node did not boot the new image: it came back on Talos v1.13.8, schematic " + ids["base"][:12] + ", not Talos v1.13.9, schematic " + ids["base"][:12]
	if d := r.Nodes[2].Detail; d != want {
		t.Errorf("k8s-node2:\n got %q\nwant %q", d, want)
	}

	if got := l.touched(); !slices.Equal(got, []string{"k8s-master", "k8s-node1", "k8s-node2"}) {
		t.Errorf("touched: %q", got)
	}
}

func TestApply_UnhealthyEtcdKeepsTalopsOffTheControlPlane(t *testing.T) {
	l := newApplyLab(t, nil, onVersion("v1.13.8", func(n *talostest.Node) {
		n.EtcdUnhealthy = n.Name == "k8s-master"
	}))
	l.h.deps.GateTimeout = 200 * time.Millisecond

	if err := l.apply("--format", "json"); cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit %d", cli.ExitCode(err))
	}

	r := l.report(t)
	if d := r.Nodes[0].Detail; d != "etcd not healthy before touching this control plane: after 200ms: k8s-master: etcd member reports: etcdserver: no leader" {
		t.Errorf("k8s-master: %q", d)
	}

	if got := l.touched(); len(got) != 0 || len(l.journal.Entries()) != 0 {
		t.Errorf("touched: %q, calls %q", got, l.journal.Entries())
	}
}

func TestApply_AControlPlaneRebootNeedsTheFullEtcdMemberList(t *testing.T) {
	// A member talops.yaml does not name (the list says two, the cluster has one control
	// plane) is planned as a removal, which apply refuses without --allow-remove: no reboot.
	l := newApplyLab(t, nil, func(n *talostest.Node) {
		if n.Name == "k8s-master" {
			n.EtcdMembers = []string{"k8s-master", "gone"}
		}
	})
	l.h.deps.GateTimeout = 200 * time.Millisecond
	l.files["nodes/k8s-master.yaml"] = append(l.files["nodes/k8s-master.yaml"], []byte("---\nmachine:\n  env:\n    HTTP_PROXY: http://proxy:3128\n")...)

	if err := l.apply("--format", "json"); cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit %d", cli.ExitCode(err))
	}

	if !strings.Contains(l.h.stderr.String(), "node gone is not in talops.yaml: apply removes a node (drain, reset, delete its Kubernetes Node) only with --allow-remove") {
		t.Errorf("stderr: %s", l.h.stderr.String())
	}

	if got := l.touched(); len(got) != 0 {
		t.Errorf("touched: %q", got)
	}

	// With etcd whole, the same change is applied and the node (1.13.9) reboots by itself.
	ok := newApplyLab(t, nil, nil)
	ok.files["nodes/k8s-master.yaml"] = l.files["nodes/k8s-master.yaml"]

	if err := ok.apply("--format", "json"); err != nil {
		t.Fatalf("apply: %v\n%s", err, ok.h.stderr.String())
	}

	if got := ok.journal.Entries(); !slices.Equal(got, []string{"k8s-master ApplyConfiguration AUTO"}) || ok.nodes["k8s-master"].Boots() != 1 {
		t.Errorf("calls: %q, boots %d", got, ok.nodes["k8s-master"].Boots())
	}
}

func TestApply_ANodeBefore113IsUpgradedWithTheLegacyCall(t *testing.T) {
	l := newApplyLab(t, nil, func(n *talostest.Node) {
		if n.Name == "k8s-node4" {
			n.Version = "v1.12.6"
		}
	})

	if err := l.apply("--format", "json"); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	// The legacy call reboots the node by itself: no pull, no reboot asked.
	if got := l.journal.Entries(); !slices.Equal(got, []string{"k8s-node4 Upgrade"}) {
		t.Errorf("calls: %q", got)
	}

	if up := l.nodes["k8s-node4"].Upgrades(); len(up) != 1 || up[0].API != "legacy" || l.nodes["k8s-node4"].Reboots() != 0 {
		t.Errorf("upgrades %+v, reboots %d", up, l.nodes["k8s-node4"].Reboots())
	}

	if v, _ := l.nodes["k8s-node4"].Running(); v != "v1.13.9" {
		t.Errorf("k8s-node4 runs %s", v)
	}
}

func TestApply_AnUpgradeWithAConfigChangeUpgradesThenApplies(t *testing.T) {
	l := newApplyLab(t, nil, onVersion("v1.13.8", nil))
	addSysctl(t, l.files)

	if err := l.apply("--format", "json"); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	want := append(lifecycleCalls("k8s-master"), "k8s-master ApplyConfiguration AUTO")
	if got := l.journal.Entries(); !slices.Equal(got[:4], want) || len(got) != 20 {
		t.Errorf("calls:\n%s", strings.Join(got, "\n"))
	}

	if d := l.report(t).Nodes[0].Detail; !strings.HasPrefix(d, "upgraded to Talos v1.13.9, schematic ") || !strings.HasSuffix(d, ", rebooted; config applied live, healthy") {
		t.Errorf("k8s-master: %q", d)
	}
}

func TestApply_DryRunUpgradesNothing(t *testing.T) {
	l := newApplyLab(t, nil, onVersion("v1.13.8", func(n *talostest.Node) {
		if n.Name == "k8s-node4" {
			n.Version = "v1.12.6"
		}
	}))
	ids := labIDs(t, l)

	if err := l.apply("--dry-run", "--format", "json"); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	r := l.report(t)
	if r.Summary.Line != "Apply (dry run, nothing changed): homelab — 5 dry-run" {
		t.Errorf("summary: %s", r.Summary.Line)
	}

	if d := r.Nodes[0].Detail; d != "talops would upgrade it from Talos v1.13.8 to Talos v1.13.9, schematic "+ids["base"][:12]+" (pull the installer, upgrade with LifecycleService, reboot)" {
		t.Errorf("k8s-master: %q", d)
	}

	if d := r.Nodes[4].Detail; !strings.HasSuffix(d, "(upgrade with the legacy MachineService.Upgrade, which reboots the node)") {
		t.Errorf("k8s-node4: %q", d)
	}

	if got := l.touched(); len(got) != 0 || len(l.journal.Entries()) != 0 {
		t.Errorf("touched: %q, calls %q", got, l.journal.Entries())
	}
}

func TestApply_NoKeyOrSecretInAnyUpgradeOutput(t *testing.T) {
	values := labSecrets(t)

	for _, args := range [][]string{{}, {"--format", "json"}, {"--dry-run"}} {
		l := newApplyLab(t, nil, onVersion("v1.13.8", func(n *talostest.Node) {
			if n.Name == "k8s-node2" {
				n.Fail = []string{"LifecycleUpgrade"}
			}
		}))
		addSysctl(t, l.files)

		_ = l.apply(args...)

		if l.h.stdout.Len() == 0 {
			t.Fatal("no output")
		}

		pem, _ := base64.StdEncoding.DecodeString(l.key)
		assertNoSecrets(t, strings.Join(args, " "), l.h.stdout.String()+l.h.stderr.String(), append(values, l.key, string(pem)))
	}
}

// A node that boots its new Talos but never becomes healthy on it: with --rollback it is
// rolled back to the Talos it ran (Talos' rollback, a reboot), passes the gate it passed
// before, and the rollout stops there; without, it is left on the new release.
func TestApply_RollbackBringsANodeWhoseGateFailsAfterAnUpgradeBack(t *testing.T) {
	for _, tc := range []struct {
		name       string
		args       []string
		runs       string
		rolledBack string
		detail     string
	}{
		{
			name: "with --rollback", args: []string{"--rollback"}, runs: "v1.13.8", rolledBack: "v1.13.8",
			detail: "rolled back to Talos v1.13.8 (--rollback), healthy",
		},
		{
			name: "without", runs: "v1.13.9",
			detail: "unmet: services (kubelet not running)",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newApplyLab(t, nil, onVersion("v1.13.8", func(n *talostest.Node) {
				if n.Name == "k8s-node2" {
					n.UnhealthyOn = "v1.13.9"
				}
			}))
			l.h.deps.GateTimeout = 300 * time.Millisecond

			err := l.apply(append([]string{"--format", "json"}, tc.args...)...)
			if cli.ExitCode(err) != cli.ExitFailure {
				t.Fatalf("exit %d, want 1\n%s", cli.ExitCode(err), l.h.stderr.String())
			}

			r := l.report(t)
			if got := outcomes(r); !slices.Equal(got, []string{
				"k8s-master upgrade applied", "k8s-node1 upgrade applied", "k8s-node2 upgrade failed",
				"k8s-node3 upgrade not attempted", "k8s-node4 upgrade not attempted",
			}) {
				t.Errorf("outcomes: %q", got)
			}

			n := r.Nodes[2]
			if v, _ := l.nodes["k8s-node2"].Running(); v != tc.runs || n.RolledBack != tc.rolledBack {
				t.Errorf("k8s-node2 runs %s, rolledBack %q; want %s, %q", v, n.RolledBack, tc.runs, tc.rolledBack)
			}

			if !strings.HasPrefix(n.Detail, "upgrade: waiting for the node to boot the new image: ") || !strings.Contains(n.Detail, tc.detail) {
				t.Errorf("k8s-node2: %q, want it to say %q", n.Detail, tc.detail)
			}

			rollbacks := slices.DeleteFunc(l.journal.Entries(), func(e string) bool { return !strings.HasSuffix(e, " Rollback") })
			if want := len(tc.args); len(rollbacks) != want {
				t.Errorf("rollbacks: %q, want %d", rollbacks, want)
			}
		})
	}
}
