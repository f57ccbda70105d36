package cli_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/talos/talostest"
	"github.com/talops/talops/internal/testlab"
)

// liveLab is the reference lab with k8s-master running exactly its rendered config and
// k8s-node1 its rendered config on an older Talos; the other nodes are down.
type liveLab struct {
	h           *harness
	ca          *talostest.CA
	talosconfig string
	key         string
}

func newLiveLab(t *testing.T) *liveLab {
	t.Helper()

	return newLiveLabOf(t, testlab.Files(t))
}

// newLiveLabOf is newLiveLab over a changed reference lab.
func newLiveLabOf(t *testing.T, files cluster.MapFiles) *liveLab {
	t.Helper()

	// What the nodes run: the lab's own render.
	r := newHarness(t, files, nil)
	if err := r.run("render", "--dir", "examples/homelab", "--out", "out"); err != nil {
		t.Fatal(err)
	}

	ids, err := render.SchematicIDs(testlab.Load(t, files))
	if err != nil {
		t.Fatal(err)
	}

	ca := talostest.NewCA(t)
	master := talostest.Start(t, ca, talostest.Node{Config: r.written[filepath.Join("out", "k8s-master.yaml")], Version: testlab.Talos, SchematicID: ids["base"]})
	node1 := talostest.Start(t, ca, talostest.Node{Config: r.written[filepath.Join("out", "k8s-node1.yaml")], Version: "v1.14.6", SchematicID: ids["gpu"]})
	down := talostest.Closed(t)

	l := &liveLab{ca: ca, talosconfig: filepath.Join(t.TempDir(), "talosconfig")}
	l.writeTalosconfig(t, ca.ClientCert(t))

	l.h = newHarness(t, files, map[string]string{"TALOSCONFIG": l.talosconfig})
	l.h.deps.TalosEndpoint = func(address string) string {
		switch address {
		case "10.0.20.100":
			return master.Addr
		case "10.0.20.101":
			return node1.Addr
		default:
			return down
		}
	}

	return l
}

func (l *liveLab) writeTalosconfig(t *testing.T, client talostest.KeyPair) {
	t.Helper()

	cfg := talostest.Talosconfig(t, "homelab", l.ca.PEM, client)
	l.key = cfg.Contexts["homelab"].Key

	if err := os.WriteFile(l.talosconfig, talostest.TalosconfigBytes(t, cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

type livePlan struct {
	Nodes []struct {
		Name, Action string
		Reasons      []string
	} `json:"nodes"`
}

func (l *liveLab) plan(t *testing.T, args ...string) livePlan {
	t.Helper()

	_ = l.h.run(append([]string{"plan", "--dir", "examples/homelab", "--live", "--format", "json"}, args...)...)

	var p livePlan
	if err := json.Unmarshal(l.h.stdout.Bytes(), &p); err != nil {
		t.Fatalf("plan --live: %v\nstderr: %s", err, l.h.stderr.String())
	}

	return p
}

// A node reports its schematic and version, not its installer's flavour: a bare-metal
// control plane beside the lab's nocloud VMs, running what it should, plans nothing.
func TestPlanLive_ANodeOnItsOwnPlatformRunningItsInstallerIsNoop(t *testing.T) {
	files := testlab.Files(t)
	testlab.Edit(t, files, "talops.yaml", "    patches: [nodes/k8s-master.yaml]\n", "    patches: [nodes/k8s-master.yaml]\n    platform: metal\n")

	p := newLiveLabOf(t, files).plan(t)

	for _, n := range p.Nodes {
		if n.Name == "k8s-master" && (n.Action != "noop" || len(n.Reasons) != 0) {
			t.Errorf("k8s-master runs its rendered config: %s: %s", n.Action, strings.Join(n.Reasons, "; "))
		}
	}
}

func TestPlanLive_EachNodeAgainstWhatItRuns(t *testing.T) {
	l := newLiveLab(t)
	p := l.plan(t)

	got := map[string]string{}
	for _, n := range p.Nodes {
		got[n.Name] = n.Action + ": " + strings.Join(n.Reasons, "; ")
	}

	if got["k8s-master"] != "noop: " {
		t.Errorf("k8s-master runs its rendered config: %s", got["k8s-master"])
	}

	if got["k8s-node1"] != "upgrade: Talos v1.14.6 → v1.14.7" {
		t.Errorf("k8s-node1 runs v1.14.6: %s", got["k8s-node1"])
	}

	for _, name := range []string{"k8s-node2", "k8s-node3", "k8s-node4"} {
		// Down is not drift: the plan cannot tell what applying would do.
		if !strings.HasPrefix(got[name], "unknown: cannot tell: not readable over the Talos API: node "+name+" (10.0.20.") ||
			!strings.Contains(got[name], "connection refused") || strings.Contains(got[name], "\n") {
			t.Errorf("%s is down: %s", name, got[name])
		}
	}

	if l.h.stderr.Len() != 0 {
		t.Errorf("stderr: %s", l.h.stderr.String())
	}
}

func TestPlanLive_AClientCertificateTheNodesDoNotTrustReadsNothing(t *testing.T) {
	l := newLiveLab(t)
	l.writeTalosconfig(t, talostest.NewCA(t).ClientCert(t))

	for _, n := range l.plan(t).Nodes {
		if n.Action != "unknown" || !strings.Contains(strings.Join(n.Reasons, ""), "not readable over the Talos API") {
			t.Errorf("%s: %s %q", n.Name, n.Action, n.Reasons)
		}
	}
}

func TestPlanLive_TalosconfigFlagWinsOverTheEnvironment(t *testing.T) {
	l := newLiveLab(t)

	moved := filepath.Join(t.TempDir(), "other")
	if err := os.Rename(l.talosconfig, moved); err != nil {
		t.Fatal(err)
	}

	if p := l.plan(t, "--talosconfig", moved); p.Nodes[0].Action != "noop" {
		t.Errorf("with --talosconfig: %+v", p.Nodes[0])
	}
}

func TestPlanLive_NoKeyOrSecretInAnyOutput(t *testing.T) {
	values := labSecrets(t)

	for _, format := range []string{"text", "json", "markdown"} {
		l := newLiveLab(t)
		_ = l.h.run("plan", "--dir", "examples/homelab", "--live", "--format", format)

		out := l.h.stdout.String() + l.h.stderr.String()
		if l.h.stdout.Len() == 0 {
			t.Fatal("no output")
		}

		pem, _ := base64.StdEncoding.DecodeString(l.key)
		assertNoSecrets(t, format, out, append(values, l.key, string(pem)))
	}
}

func TestPlanLive_BrokenTalosconfigIsOneLineWithoutItsContent(t *testing.T) {
	l := newLiveLab(t)

	// A key pasted where YAML breaks: the decoder's message would quote it.
	if err := os.WriteFile(l.talosconfig, []byte("context: homelab\ncontexts: [key: "+l.key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	err := l.h.run("plan", "--dir", "examples/homelab", "--live")
	if cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit %d", cli.ExitCode(err))
	}

	// The path came from $TALOSCONFIG: the message says so, the user did not type it.
	if want := "talops: talosconfig " + l.talosconfig + " (from $TALOSCONFIG) is not a talosconfig (YAML with contexts)\n"; l.h.stderr.String() != want {
		t.Errorf("stderr %q", l.h.stderr.String())
	}

	if strings.Contains(l.h.stdout.String()+l.h.stderr.String(), l.key[:40]) {
		t.Error("the key was printed")
	}
}

func TestPlanLive_MissingTalosconfigNamesTheFile(t *testing.T) {
	l := newLiveLab(t)

	err := l.h.run("plan", "--dir", "examples/homelab", "--live", "--talosconfig", "/nonexistent/talosconfig")
	if cli.ExitCode(err) != cli.ExitFailure || !strings.HasPrefix(l.h.stderr.String(), "talops: read talosconfig /nonexistent/talosconfig: ") {
		t.Errorf("exit %d, stderr %q", cli.ExitCode(err), l.h.stderr.String())
	}
}

func TestPlanLive_UnreachableNodesAreCountedAndFailTheDetailedExitCode(t *testing.T) {
	t.Parallel()

	l := newLiveLab(t)

	err := l.h.run("plan", "--dir", "examples/homelab", "--live", "--detailed-exitcode")
	if cli.ExitCode(err) != 1 || err.Error() != "cannot tell whether k8s-node2, k8s-node3, k8s-node4 drifted: not readable" {
		t.Errorf("plan --live --detailed-exitcode with nodes down: exit %d, %v", cli.ExitCode(err), err)
	}

	if !strings.Contains(l.h.stdout.String(), "Plan: 5 nodes — 1 upgrade (v1.14.6 → v1.14.7), 3 unreachable, 1 unchanged") {
		t.Errorf("the summary does not count the unreachable nodes:\n%s", l.h.stdout.String())
	}
}

func TestPlanLive_EveryNodeUnreachableFailsAndSaysSo(t *testing.T) {
	t.Parallel()

	l := newLiveLab(t)
	l.h.deps.TalosEndpoint = func(string) string { return talostest.Closed(t) }

	err := l.h.run("plan", "--dir", "examples/homelab", "--live")
	if cli.ExitCode(err) != 1 || err.Error() != "plan --live read no node: every node is unreachable (k8s-master, k8s-node1, k8s-node2, k8s-node3, k8s-node4)" {
		t.Errorf("plan --live with every node down: exit %d, %v", cli.ExitCode(err), err)
	}

	if !strings.Contains(l.h.stdout.String(), "Plan refused: no node's current state could be read (5 nodes — 5 unreachable)\n") {
		t.Errorf("the headline does not say the plan is refused:\n%s", l.h.stdout.String())
	}

	// No apply may be given the hash of a plan of nothing read: none is shown.
	if strings.Contains(l.h.stdout.String(), "plan hash") {
		t.Errorf("the refused plan shows a hash:\n%s", l.h.stdout.String())
	}
}

func TestPlanLive_EveryNodeUnreachableShowsNoHashInAnyFormat(t *testing.T) {
	t.Parallel()

	for _, format := range []string{"json", "markdown"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()

			l := newLiveLab(t)
			l.h.deps.TalosEndpoint = func(string) string { return talostest.Closed(t) }

			if err := l.h.run("plan", "--dir", "examples/homelab", "--live", "--format", format); cli.ExitCode(err) != 1 {
				t.Fatalf("plan --live --format %s with every node down: exit %d, %v", format, cli.ExitCode(err), err)
			}

			out := l.h.stdout.String()

			switch format {
			case "json":
				if !strings.Contains(out, `"hash": ""`) {
					t.Errorf("the refused plan's JSON carries a hash:\n%s", out)
				}
			case "markdown":
				if strings.Contains(out, "talops:plan-hash") || !strings.Contains(out, "no plan hash") {
					t.Errorf("the refused plan's markdown carries a hash:\n%s", out)
				}
			}
		})
	}
}
