package cli_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/talos/talostest"
	"github.com/talops/talops/internal/testlab"
)

// applyLab is the reference lab with every node running its rendered config on the
// cluster's Talos version: a plan against it is all noop until the test edits the repo.
type applyLab struct {
	h           *harness
	files       cluster.MapFiles
	nodes       map[string]*talostest.Server
	journal     *talostest.Journal
	talosconfig string
	key         string
}

var labNodes = []string{"k8s-master", "k8s-node1", "k8s-node2", "k8s-node3", "k8s-node4"}

// newApplyLab starts the lab's nodes; tweak may change what a node runs before it starts.
// The lab is the one that ran Talos 1.13: these tests are about apply on nodes that reboot
// for a change that needs it (AUTO); the 1.14 behaviour has tests of its own.
func newApplyLab(t *testing.T, env map[string]string, tweak func(*talostest.Node)) *applyLab {
	t.Helper()

	files := testlab.On113(t)

	r := newHarness(t, files, nil)
	if err := r.run("render", "--dir", "examples/homelab", "--out", "out"); err != nil {
		t.Fatal(err)
	}

	ids, err := render.SchematicIDs(testlab.Load(t, files))
	if err != nil {
		t.Fatal(err)
	}

	ca := talostest.NewCA(t)
	l := &applyLab{files: files, nodes: map[string]*talostest.Server{}, journal: &talostest.Journal{}, talosconfig: filepath.Join(t.TempDir(), "talosconfig")}
	addresses := map[string]string{}

	for i, name := range labNodes {
		n := talostest.Node{Name: name, Config: r.written[filepath.Join("out", name+".yaml")], Version: "v1.13.9", SchematicID: ids["base"], Journal: l.journal}
		if name == "k8s-node1" {
			n.SchematicID = ids["gpu"]
		}

		if tweak != nil {
			tweak(&n)
		}

		l.nodes[name] = talostest.Start(t, ca, n)
		addresses[fmt.Sprintf("10.0.20.%d", 100+i)] = l.nodes[name].Addr
	}

	cfg := talostest.Talosconfig(t, "homelab", ca.PEM, ca.ClientCert(t))
	l.key = cfg.Contexts["homelab"].Key

	if err := os.WriteFile(l.talosconfig, talostest.TalosconfigBytes(t, cfg), 0o600); err != nil {
		t.Fatal(err)
	}

	if env == nil {
		env = map[string]string{}
	}

	env["TALOSCONFIG"] = l.talosconfig

	l.h = newHarness(t, files, env)
	l.h.deps.TalosTimeout = 5 * time.Second
	l.h.deps.GateTimeout = 5 * time.Second
	l.h.deps.GateInterval = 10 * time.Millisecond
	l.h.deps.TalosEndpoint = func(address string) string {
		if a, ok := addresses[address]; ok {
			return a
		}

		return talostest.Closed(t)
	}

	return l
}

// apply runs apply and resets the outputs first, so each run is read on its own.
func (l *applyLab) apply(args ...string) error {
	l.h.stdout.Reset()
	l.h.stderr.Reset()

	return l.h.run(append([]string{"apply", "--dir", "examples/homelab"}, args...)...)
}

type applyReport struct {
	Summary struct {
		Line   string
		Failed bool
	}
	PlanHash string
	Nodes    []struct {
		Name, Role, Action, Outcome, Detail, RolledBack string
		Rebooted                                        bool
	}
}

func (l *applyLab) report(t *testing.T) applyReport {
	t.Helper()

	var r applyReport
	if err := json.Unmarshal(l.h.stdout.Bytes(), &r); err != nil {
		t.Fatalf("apply --format json: %v\nstdout: %s\nstderr: %s", err, l.h.stdout.String(), l.h.stderr.String())
	}

	return r
}

func outcomes(r applyReport) []string {
	var out []string
	for _, n := range r.Nodes {
		out = append(out, n.Name+" "+n.Action+" "+n.Outcome)
	}

	return out
}

// touched says which nodes took a config, were asked for a dry run, rebooted, pulled an
// image or were upgraded.
func (l *applyLab) touched() []string {
	var out []string

	for _, name := range labNodes {
		s := l.nodes[name]
		if len(s.Applied()) > 0 || s.DryRuns() > 0 || s.Reboots() > 0 || len(s.Upgrades()) > 0 || len(s.Pulls()) > 0 {
			out = append(out, name)
		}
	}

	return out
}

// addSysctl changes every node's config with a change Talos applies live.
func addSysctl(t *testing.T, files cluster.MapFiles) {
	testlab.Edit(t, files, "patches/common.yaml", `fs.inotify.max_user_instances: "8192"`, `fs.inotify.max_user_instances: "8192"`+"\n    vm.max_map_count: \"262144\"")
}

func TestApply_UpdatesEveryNodeControlPlaneFirstThenRerunIsANoop(t *testing.T) {
	l := newApplyLab(t, nil, nil)
	addSysctl(t, l.files)

	if err := l.apply("--format", "json"); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	want := []string{
		"k8s-master ApplyConfiguration AUTO", "k8s-node1 ApplyConfiguration AUTO", "k8s-node2 ApplyConfiguration AUTO",
		"k8s-node3 ApplyConfiguration AUTO", "k8s-node4 ApplyConfiguration AUTO",
	}
	if got := l.journal.Entries(); !slices.Equal(got, want) {
		t.Errorf("calls:\n%s", strings.Join(got, "\n"))
	}

	r := l.report(t)
	if r.Summary.Line != "Apply: homelab — 5 applied" || r.Nodes[0].Detail != "applied live, healthy" {
		t.Errorf("report: %+v", r)
	}

	if !strings.Contains(string(l.nodes["k8s-node3"].Applied()[0].Config), "vm.max_map_count") {
		t.Error("k8s-node3 did not get its new config")
	}

	// The nodes now run the desired configs: a second run changes nothing.
	if err := l.apply("--format", "json"); err != nil {
		t.Fatalf("second apply: %v\n%s", err, l.h.stderr.String())
	}

	if r := l.report(t); r.Summary.Line != "Apply: homelab — 5 skipped" || len(l.journal.Entries()) != 5 {
		t.Errorf("second run: %s, calls %q", r.Summary.Line, l.journal.Entries())
	}
}

func TestApply_UnchangedNodesAreNotTouched(t *testing.T) {
	l := newApplyLab(t, nil, nil)
	l.files["nodes/k8s-node3.yaml"] = append(l.files["nodes/k8s-node3.yaml"], []byte("---\nmachine:\n  nodeLabels:\n    zone: b\n")...)

	hash := l.planHash(t)

	if err := l.apply(); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	if got := l.journal.Entries(); !slices.Equal(got, []string{"k8s-node3 ApplyConfiguration AUTO"}) {
		t.Errorf("calls: %q", got)
	}

	// The hash follows every byte of the lab's configs: the golden file holds a placeholder.
	golden(t, "apply-one-node.txt", strings.ReplaceAll(l.h.stdout.String(), hash, "HASH"))
}

// planHash is the hash of the plan apply would compute now.
func (l *applyLab) planHash(t *testing.T) string {
	t.Helper()

	h := newHarness(t, l.files, map[string]string{"TALOSCONFIG": l.talosconfig})
	h.deps.TalosEndpoint = l.h.deps.TalosEndpoint

	_ = h.run("plan", "--dir", "examples/homelab", "--live", "--format", "json")

	var p struct{ Hash string }
	if err := json.Unmarshal(h.stdout.Bytes(), &p); err != nil || p.Hash == "" {
		t.Fatalf("plan: %v %s", err, h.stderr.String())
	}

	return p.Hash
}

func TestApply_AFailureStopsTheRolloutAndTheReportSaysWhatHappenedToEachNode(t *testing.T) {
	l := newApplyLab(t, nil, func(n *talostest.Node) {
		if n.Name == "k8s-node2" {
			n.Fail = []string{"ApplyConfiguration"}
		}
	})
	addSysctl(t, l.files)

	err := l.apply("--format", "json")
	if cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit %d", cli.ExitCode(err))
	}

	r := l.report(t)
	want := []string{
		"k8s-master update applied", "k8s-node1 update applied", "k8s-node2 update failed",
		"k8s-node3 update not attempted", "k8s-node4 update not attempted",
	}

	if got := outcomes(r); !slices.Equal(got, want) || !r.Summary.Failed {
		t.Errorf("outcomes: %q", got)
	}

	if d := r.Nodes[2].Detail; !strings.HasPrefix(d, "apply the config: ") || !strings.Contains(d, "ApplyConfiguration failed on k8s-node2") {
		t.Errorf("k8s-node2: %q", d)
	}

	if got := l.touched(); !slices.Equal(got, []string{"k8s-master", "k8s-node1"}) {
		t.Errorf("touched: %q", got)
	}

	// The lab's bundle is plaintext: no recipient to encrypt an etcd snapshot to, said once;
	// then a line per step as it happens (the harness's clock stands still).
	if l.h.stderr.String() != "etcd snapshot: none taken: the secrets file is not SOPS/age-encrypted, so there is no recipient to encrypt it to (--etcd-backup-recipient R, or --no-etcd-backup)\n"+
		"Kubernetes API not reachable yet: nodes are not drained and no apply lock is taken (no Kubernetes client)\n"+
		"[1/5] k8s-master: sending its config (mode auto)\n[1/5] k8s-master: waiting for its health gate\n[1/5] k8s-master: applied after 0s\n"+
		"[2/5] k8s-node1: sending its config (mode auto)\n[2/5] k8s-node1: waiting for its health gate\n[2/5] k8s-node1: applied after 0s\n"+
		"[3/5] k8s-node2: sending its config (mode auto)\n[3/5] k8s-node2: failed after 0s\n"+
		"talops: apply stopped at the first failure; nodes not attempted were not touched\n" {
		t.Errorf("stderr: %q", l.h.stderr.String())
	}
}

func TestApply_AFailedControlPlaneStopsBeforeAnyWorker(t *testing.T) {
	l := newApplyLab(t, nil, func(n *talostest.Node) {
		if n.Name == "k8s-master" {
			n.Fail = []string{"ApplyConfiguration"}
		}
	})
	addSysctl(t, l.files)

	if err := l.apply("--format", "json", "--parallel", "3"); cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit %d", cli.ExitCode(err))
	}

	if got := outcomes(l.report(t)); got[0] != "k8s-master update failed" || slices.ContainsFunc(got[1:], func(s string) bool { return !strings.HasSuffix(s, "not attempted") }) {
		t.Errorf("outcomes: %q", got)
	}

	if got := l.touched(); len(got) != 0 {
		t.Errorf("touched: %q", got)
	}
}

func TestApply_ParallelWorkersAllApplied(t *testing.T) {
	l := newApplyLab(t, nil, nil)
	addSysctl(t, l.files)

	if err := l.apply("--parallel", "4", "--format", "json"); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	if got := l.journal.Entries(); len(got) != 5 || got[0] != "k8s-master ApplyConfiguration AUTO" {
		t.Errorf("calls: %q", got)
	}
}

func TestApply_AChangeThatNeedsARebootIsFollowedByOne(t *testing.T) {
	l := newApplyLab(t, nil, nil)
	// machine.files needs a reboot up to Talos 1.13: the lab's 1.13.9 node answers AUTO
	// with REBOOT and reboots by itself, so talops asks for no reboot.
	l.files["nodes/k8s-node4.yaml"] = append(l.files["nodes/k8s-node4.yaml"], []byte("---\nmachine:\n  files:\n    - path: /var/etc/motd\n      permissions: 0o644\n      op: create\n      content: hello\n")...)

	if err := l.apply("--format", "json"); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	if got := l.journal.Entries(); !slices.Equal(got, []string{"k8s-node4 ApplyConfiguration AUTO"}) || l.nodes["k8s-node4"].Boots() != 1 {
		t.Errorf("calls: %q, boots %d", got, l.nodes["k8s-node4"].Boots())
	}

	r := l.report(t)
	if n := r.Nodes[4]; n.Action != "reboot" || n.Outcome != "applied" || !n.Rebooted || n.Detail != "applied, rebooted, healthy" {
		t.Errorf("k8s-node4: %+v", n)
	}

	// no-reboot cannot carry it out: refused before any call.
	l2 := newApplyLab(t, nil, nil)
	l2.files["nodes/k8s-node4.yaml"] = l.files["nodes/k8s-node4.yaml"]

	if err := l2.apply("--mode", "no-reboot"); cli.ExitCode(err) != cli.ExitFailure || !strings.Contains(l2.h.stderr.String(), "talops: node k8s-node4: its change needs a reboot, which --mode no-reboot cannot do; use --mode auto or staged\n") {
		t.Errorf("exit %d, stderr %q", cli.ExitCode(err), l2.h.stderr.String())
	}

	if got := l2.touched(); len(got) != 0 {
		t.Errorf("touched: %q", got)
	}
}

func TestApply_StagedModeStagesWithoutRebooting(t *testing.T) {
	l := newApplyLab(t, nil, nil)
	addSysctl(t, l.files)

	if err := l.apply("--mode", "staged", "--format", "json"); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	for _, n := range l.report(t).Nodes {
		if n.Outcome != "applied" || n.Detail != "staged: takes effect on the node's next reboot" {
			t.Errorf("%s: %+v", n.Name, n)
		}
	}

	if got := l.nodes["k8s-master"].Applied(); len(got) != 1 || got[0].Mode != "STAGED" || l.nodes["k8s-master"].Reboots() != 0 {
		t.Errorf("k8s-master: %+v", got)
	}
}

func TestApply_DryRunChangesNothing(t *testing.T) {
	l := newApplyLab(t, nil, nil)
	addSysctl(t, l.files)

	if err := l.apply("--dry-run", "--format", "json"); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	r := l.report(t)
	if r.Summary.Line != "Apply (dry run, nothing changed): homelab — 5 dry-run" {
		t.Errorf("summary: %s", r.Summary.Line)
	}

	for _, name := range labNodes {
		if s := l.nodes[name]; s.DryRuns() != 1 || len(s.Applied()) != 0 || s.Reboots() != 0 {
			t.Errorf("%s: dry runs %d, applied %d, reboots %d", name, s.DryRuns(), len(s.Applied()), s.Reboots())
		}
	}

	if len(l.journal.Entries()) != 0 {
		t.Errorf("calls: %q", l.journal.Entries())
	}
}

// refused runs apply and checks it exits 1 with stderr starting with the refusal, and
// that no node was touched.
func refused(t *testing.T, l *applyLab, wantStderr string, args ...string) {
	t.Helper()

	err := l.apply(args...)
	if cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit %d", cli.ExitCode(err))
	}

	if !strings.HasPrefix(l.h.stderr.String(), "talops: apply refused, no node was changed:\n"+wantStderr) {
		t.Errorf("stderr:\n%s", l.h.stderr.String())
	}

	if got := l.touched(); len(got) != 0 || len(l.journal.Entries()) != 0 {
		t.Errorf("touched: %q", got)
	}

	if l.h.stdout.Len() != 0 {
		t.Errorf("stdout: %s", l.h.stdout.String())
	}
}

func TestApply_RefusesAPlanOtherThanTheReviewedOne(t *testing.T) {
	l := newApplyLab(t, nil, nil)
	reviewed := l.planHash(t)

	addSysctl(t, l.files)
	refused(t, l, "talops: the plan differs from the one reviewed: its hash against the running nodes is "+l.planHash(t)+", --plan-hash is "+reviewed+"\n", "--plan-hash", reviewed)

	// The hash of the plan as it stands is accepted.
	if err := l.apply("--plan-hash", l.planHash(t)); err != nil {
		t.Fatalf("apply with the right hash: %v\n%s", err, l.h.stderr.String())
	}
}

func TestApply_RefusesPullRequestEvents(t *testing.T) {
	for _, ev := range []string{"pull_request", "pull_request_target", "issue_comment", "workflow_run", "merge_group"} {
		l := newApplyLab(t, map[string]string{"GITHUB_EVENT_NAME": ev}, nil)
		addSysctl(t, l.files)
		refused(t, l, "talops: apply does not run for "+ev+" events: it runs on the merged commit (push, workflow_dispatch or schedule)\n")
	}
}

func TestApply_RefusesAThrowawayBundle(t *testing.T) {
	l := newApplyLab(t, nil, nil)
	testlab.Edit(t, l.files, "talops.yaml", "secrets: secrets.THROWAWAY.yaml\n", "")
	refused(t, l, "talops: apply needs the cluster's real secrets bundle, and only a throwaway one is available (talops.yaml names no secrets file)\n")
}

func TestApply_RefusesADesiredStateWithErrors(t *testing.T) {
	l := newApplyLab(t, nil, nil)
	testlab.SetVersions(t, l.files, "", "v1.30.0")

	err := l.apply()
	if cli.ExitCode(err) != cli.ExitFailure || !strings.Contains(l.h.stderr.String(), "versions.k8s-unsupported") ||
		!strings.HasSuffix(l.h.stderr.String(), "talops: apply refused, no node was changed:\ntalops: the desired state has errors (listed above)\n") {
		t.Errorf("exit %d, stderr:\n%s", cli.ExitCode(err), l.h.stderr.String())
	}

	if got := l.touched(); len(got) != 0 {
		t.Errorf("touched: %q", got)
	}
}

func TestApply_RefusesWhenANodeCannotBeRead(t *testing.T) {
	l := newApplyLab(t, nil, nil)
	addSysctl(t, l.files)
	testlab.Edit(t, l.files, "talops.yaml", "address: 10.0.20.104", "address: 10.0.20.199")
	refused(t, l, "talops: node k8s-node4: not readable over the Talos API: node k8s-node4 (10.0.20.199): ")
}

func TestApply_RefusesAnUpgradeOutsideAutoMode(t *testing.T) {
	l := newApplyLab(t, nil, func(n *talostest.Node) {
		if n.Name == "k8s-node1" {
			n.Version = "v1.13.8"
		}
	})
	refused(t, l, "talops: node k8s-node1 needs an upgrade, which reboots it: --mode staged does not; use --mode auto\n", "--mode", "staged")
}

func TestApply_NoKeyOrSecretInAnyOutput(t *testing.T) {
	values := labSecrets(t)

	for _, args := range [][]string{{}, {"--format", "json"}, {"--dry-run"}} {
		l := newApplyLab(t, nil, func(n *talostest.Node) {
			if n.Name == "k8s-node2" {
				n.Fail = []string{"ApplyConfiguration"}
			}
		})
		addSysctl(t, l.files)

		_ = l.apply(args...)

		if l.h.stdout.Len() == 0 {
			t.Fatal("no output")
		}

		pem, _ := base64.StdEncoding.DecodeString(l.key)
		assertNoSecrets(t, strings.Join(args, " "), l.h.stdout.String()+l.h.stderr.String(), append(values, l.key, string(pem)))
	}
}

func TestApply_FlagsAreChecked(t *testing.T) {
	l := newApplyLab(t, nil, nil)

	for args, want := range map[string]string{
		"--mode reboot":   `talops: --mode must be one of auto, no-reboot, staged, try, got "reboot"` + "\n",
		"--parallel 0":    "talops: --parallel must be 1 or more, got 0\n",
		"--format github": `talops: --format must be one of text, json, got "github"` + "\n",
	} {
		if err := l.apply(strings.Fields(args)...); cli.ExitCode(err) != cli.ExitFailure || l.h.stderr.String() != want {
			t.Errorf("%s: stderr %q", args, l.h.stderr.String())
		}
	}
}

func TestApply_NodeThatCannotReachTheTargetInOneUpgradeIsRefused(t *testing.T) {
	l := newApplyLab(t, nil, func(n *talostest.Node) {
		if n.Name == "k8s-node2" {
			n.Version = "v1.10.7"
		}
	})

	refused(t, l, "talops: node k8s-node2 runs v1.10.7: v1.10.7 cannot upgrade to v1.13.9 directly: the host must run at least v1.11.0 first\n")
}

func TestApply_ReviewedPlanWithErrorsIsRefused(t *testing.T) {
	l := newApplyLab(t, nil, nil)

	// The reviewed base ran Talos 1.14: going back to 1.13 is a downgrade across minors.
	base := testlab.At(t, "v1.14.1", "v1.36.4") // pinned to configVersion v1.13
	l.h.dirs["reviewed"] = base

	err := l.apply("--plan-hash", strings.Repeat("0", 64), "--reviewed-against", "reviewed")
	if cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit %d", cli.ExitCode(err))
	}

	stderr := l.h.stderr.String()
	if !strings.Contains(stderr, "versions.downgrade") || !strings.Contains(stderr, "talops: the reviewed plan (against reviewed) has errors (listed above)") {
		t.Errorf("stderr:\n%s", stderr)
	}

	if got := l.touched(); len(got) != 0 {
		t.Errorf("touched: %q", got)
	}
}

func TestApply_RoleChangeIsRefused(t *testing.T) {
	l := newApplyLab(t, nil, nil)
	testlab.Edit(t, l.files, "talops.yaml", "  - name: k8s-node4\n    address: 10.0.20.104\n    role: worker", "  - name: k8s-node4\n    address: 10.0.20.104\n    role: controlplane")

	err := l.apply()
	if cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit %d", cli.ExitCode(err))
	}

	if !strings.Contains(l.h.stderr.String(), "node k8s-node4 runs as worker and talops.yaml makes it a controlplane") {
		t.Errorf("stderr:\n%s", l.h.stderr.String())
	}

	if got := l.touched(); len(got) != 0 {
		t.Errorf("touched: %q", got)
	}
}

func TestApply_NodeThatDriftedBeyondTheReviewedPlanIsRefused(t *testing.T) {
	l := newApplyLab(t, nil, func(n *talostest.Node) {
		if n.Name == "k8s-node2" {
			n.Version = "v1.13.8"
		}
	})
	l.h.dirs["reviewed"] = testlab.On113(t)

	// The reviewed plan (the repository against itself) changes nothing.
	if err := l.h.run("plan", "--dir", "examples/homelab", "--against", "reviewed", "--format", "json"); err != nil {
		t.Fatal(err)
	}

	var reviewed struct{ Hash string }
	if err := json.Unmarshal(l.h.stdout.Bytes(), &reviewed); err != nil {
		t.Fatal(err)
	}

	refused(t, l, "talops: node k8s-node2 needs upgrade now, but the reviewed plan said noop: it drifted since; review a new plan (talops plan --live)\n",
		"--plan-hash", reviewed.Hash, "--reviewed-against", "reviewed")
}

func TestApply_OnATerminalShowsThePlanAndAppliesOnlyOnYes(t *testing.T) {
	for _, tc := range []struct {
		name, answer string
		args         []string
		asked, apply bool
	}{
		{name: "no", answer: "no\n", asked: true},
		{name: "an empty line", answer: "\n", asked: true},
		{name: "yes", answer: "yes\n", asked: true, apply: true},
		{name: "--yes asks nothing", args: []string{"--yes"}, apply: true},
		{name: "a dry run asks nothing", args: []string{"--dry-run"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newApplyLab(t, nil, nil)
			addSysctl(t, l.files)

			var questions []string

			l.h.deps.Prompt = func(q string) (string, error) {
				questions = append(questions, q)

				return tc.answer, nil
			}

			err := l.apply(tc.args...)

			if asked := len(questions) > 0; asked != tc.asked {
				t.Fatalf("asked %q", questions)
			}

			if tc.asked {
				if questions[0] != `Apply this plan to homelab? Only "yes" applies it: ` {
					t.Errorf("question: %q", questions[0])
				}

				if !strings.Contains(l.h.stderr.String(), "~ k8s-master (controlplane): update\n") || !strings.Contains(l.h.stderr.String(), "Plan: 5 nodes — 5 updates\n") {
					t.Errorf("the plan was not shown before the question:\n%s", l.h.stderr.String())
				}
			}

			applied := len(l.nodes["k8s-master"].Applied()) > 0
			if applied != tc.apply {
				t.Errorf("applied = %v, want %v (err %v)", applied, tc.apply, err)
			}

			if tc.asked && !tc.apply {
				if cli.ExitCode(err) != cli.ExitFailure || !strings.Contains(l.h.stderr.String(), "talops: apply refused, no node was changed:\n") ||
					!strings.Contains(l.h.stderr.String(), `not confirmed (the answer was not "yes"; --yes applies without asking)`) {
					t.Errorf("exit %d, stderr:\n%s", cli.ExitCode(err), l.h.stderr.String())
				}

				if got := l.touched(); len(got) != 0 {
					t.Errorf("touched: %q", got)
				}
			}
		})
	}
}
