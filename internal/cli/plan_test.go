package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/testlab"
)

// planHarness plans the changed lab (desired, examples/homelab) against the reference lab (current, base/).
func planHarness(t *testing.T) *harness {
	t.Helper()

	h := newHarness(t, testlab.Changed(t), nil)
	h.dirs["base"] = testlab.Files(t)

	return h
}

func TestPlan_EachFormat(t *testing.T) {
	t.Parallel()

	for _, format := range []string{"text", "json", "markdown"} {
		t.Run(format, func(t *testing.T) {
			h := planHarness(t)

			if err := h.run("plan", "--dir", "examples/homelab", "--against", "base", "--format", format); err != nil {
				t.Fatalf("plan: %v\n%s", err, h.stderr.String())
			}

			golden(t, "plan-changed."+format, h.stdout.String())
		})
	}
}

func TestPlan_JSONShape(t *testing.T) {
	t.Parallel()

	h := planHarness(t)

	if err := h.run("plan", "--dir", "examples/homelab", "--against", "base", "--format", "json"); err != nil {
		t.Fatal(err)
	}

	var out struct {
		Summary map[string]any `json:"summary"`
		Nodes   []struct {
			Name, Role, Action, Diff string
			Reasons                  []string
		} `json:"nodes"`
		Hash string `json:"hash"`
	}

	if err := json.Unmarshal(h.stdout.Bytes(), &out); err != nil {
		t.Fatal(err)
	}

	if len(out.Nodes) != 6 || out.Nodes[3].Action != "upgrade" || len(out.Hash) != 64 || out.Summary["hasChanges"] != true {
		t.Errorf("plan json = %+v", out)
	}
}

func TestPlan_DetailedExitCode(t *testing.T) {
	t.Parallel()

	h := planHarness(t)
	if err := h.run("plan", "--dir", "examples/homelab", "--against", "base", "--detailed-exitcode"); cli.ExitCode(err) != cli.ExitChanges {
		t.Errorf("with changes: exit %d", cli.ExitCode(err))
	}

	h = newHarness(t, testlab.Files(t), nil)
	h.dirs["base"] = testlab.Files(t)

	if err := h.run("plan", "--dir", "examples/homelab", "--against", "base", "--detailed-exitcode"); cli.ExitCode(err) != cli.ExitOK {
		t.Errorf("without changes: exit %d", cli.ExitCode(err))
	}

	if !strings.Contains(h.stdout.String(), "Plan: 5 nodes — no changes") {
		t.Errorf("stdout: %s", h.stdout.String())
	}

	if h.stderr.Len() != 0 {
		t.Errorf("stderr: %s", h.stderr.String())
	}
}

func TestPlan_NeedsACurrentState(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "--dir", "examples/homelab"}, "talops: plan needs the current state: --base REF, --against DIR or --live\n"},
		{[]string{"plan", "--dir", "examples/homelab", "--live", "--base", "main"}, "talops: --live cannot be used with --base or --against\n"},
		{[]string{"plan", "--dir", "examples/homelab", "--live", "--against", "base"}, "talops: --live cannot be used with --base or --against\n"},
		{[]string{"plan", "--dir", "examples/homelab", "--base", "main", "--against", "base"}, "talops: --base and --against cannot be used together\n"},
	} {
		h := planHarness(t)
		if err := h.run(tc.args...); cli.ExitCode(err) != cli.ExitFailure {
			t.Errorf("%v: exit %d", tc.args, cli.ExitCode(err))
		}

		if h.stderr.String() != tc.want {
			t.Errorf("%v: stderr %q", tc.args, h.stderr.String())
		}
	}
}

func TestPlan_NoSecretInAnyView(t *testing.T) {
	t.Parallel()

	values := labSecrets(t)

	for _, format := range []string{"text", "json", "markdown"} {
		h := planHarness(t)
		_ = h.run("plan", "--dir", "examples/homelab", "--against", "base", "--format", format)

		if h.stdout.Len() == 0 {
			t.Fatal("no output")
		}

		assertNoSecrets(t, format, h.stdout.String()+h.stderr.String(), values)
	}
}

func TestPlan_TalosBumpExplainsTheVersionsInTheComment(t *testing.T) {
	t.Parallel()

	base := testlab.Files(t)
	testlab.SetVersions(t, base, "v1.14.6", "")

	h := newHarness(t, testlab.Files(t), nil)
	h.dirs["base"] = base

	if err := h.run("plan", "--dir", "examples/homelab", "--against", "base", "--format", "markdown"); err != nil {
		t.Fatalf("plan: %v\n%s", err, h.stderr.String())
	}

	out := h.stdout.String()
	for _, want := range []string{
		"**Plan: 5 nodes — 5 upgrades (v1.14.6 → v1.14.7)**",
		"#### Versions",
		"| Talos | v1.14.6 | v1.14.7 |",
		"| k8s-node1 | lts |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("comment lacks %q:\n%s", want, out)
		}
	}
}

// Moving a node to another platform moves its installer: the plan (and its hash) carry it
// as the upgrade it is, and no other node changes.
func TestPlan_ANodesPlatformChangeIsAnInstallerUpgradeOfThatNode(t *testing.T) {
	t.Parallel()

	desired := testlab.Files(t)
	testlab.Edit(t, desired, "talops.yaml", "    patches: [nodes/k8s-node4.yaml]\n", "    patches: [nodes/k8s-node4.yaml]\n    platform: metal\n")

	h := newHarness(t, desired, nil)
	h.dirs["base"] = testlab.Files(t)

	if err := h.run("plan", "--dir", "examples/homelab", "--against", "base", "--format", "json"); err != nil {
		t.Fatalf("plan: %v\n%s", err, h.stderr.String())
	}

	var p struct {
		Nodes []struct {
			Name, Action string
			Upgrade      *struct{ FromInstaller, ToInstaller string }
		}
	}
	if err := json.Unmarshal(h.stdout.Bytes(), &p); err != nil {
		t.Fatal(err)
	}

	if len(p.Nodes) != 5 {
		t.Fatalf("plan has %d nodes, want the lab's 5", len(p.Nodes))
	}

	for _, n := range p.Nodes {
		switch {
		case n.Name != "k8s-node4" && n.Action != "noop":
			t.Errorf("%s: %s, want noop", n.Name, n.Action)
		case n.Name == "k8s-node4" && (n.Action != "upgrade" || n.Upgrade == nil ||
			!strings.Contains(n.Upgrade.FromInstaller, "/nocloud-installer/") || !strings.Contains(n.Upgrade.ToInstaller, "/metal-installer/")):
			t.Errorf("k8s-node4: %s %+v, want an upgrade from the nocloud installer to the metal one", n.Action, n.Upgrade)
		}
	}
}

func TestPlan_DesiredStateWithErrorsGetsNoPlan(t *testing.T) {
	t.Parallel()

	desired := testlab.Files(t)
	testlab.SetVersions(t, desired, "", "v1.30.0")

	for _, format := range []string{"text", "markdown", "json"} {
		h := newHarness(t, desired, nil)
		h.dirs["base"] = testlab.Files(t)

		if err := h.run("plan", "--dir", "examples/homelab", "--against", "base", "--format", format, "--detailed-exitcode"); cli.ExitCode(err) != cli.ExitFailure {
			t.Errorf("%s: exit %d", format, cli.ExitCode(err))
		}

		out := h.stdout.String()
		if !strings.Contains(out, "No plan: the desired state has errors; fix them first") || strings.Contains(out, "no changes") {
			t.Errorf("%s output:\n%s", format, out)
		}

		if !strings.Contains(out, "versions.k8s-unsupported") {
			t.Errorf("%s output lacks the finding:\n%s", format, out)
		}
	}
}

// A Renovate bump that breaks the driver pin gets no plan, but its comment must still say
// what the bump does: the skipped minor and the driver before and after.
func TestPlan_BlockedPlanStillExplainsTheVersionBump(t *testing.T) {
	t.Parallel()

	h := newHarness(t, productionLab(t, "v1.13.9"), nil)
	h.dirs["base"] = productionLab(t, "v1.11.6")

	err := h.run("plan", "--dir", "examples/homelab", "--against", "base", "--format", "markdown", "--detailed-exitcode")
	if cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit %d, want 1 for the broken pin\n%s", cli.ExitCode(err), h.stderr.String())
	}

	out := h.stdout.String()
	for _, want := range []string{
		"No plan: the desired state has errors; fix them first",
		"#### Versions",
		"| k8s-node1 | production | 570.172.08 → **595.91.07** |",
		"`versions.upgrade-skips-minor`",
		"`nvidia.driver-pin`",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("comment lacks %q:\n%s", want, out)
		}
	}

	if n := strings.Count(out, "`nvidia.driver-pin`"); n != 1 {
		t.Errorf("the broken pin is reported %d times, want once (with the drivers before and after):\n%s", n, out)
	}
}

func TestPlan_APullRequestThatFixesABrokenNodeStillGetsAPlan(t *testing.T) {
	t.Parallel()

	base := testlab.Files(t)
	testlab.Edit(t, base, "nodes/k8s-node2.yaml", "hostname: k8s-node2", "hostnam: k8s-node2")

	h := newHarness(t, testlab.Files(t), nil)
	h.dirs["base"] = base

	if err := h.run("plan", "--dir", "examples/homelab", "--against", "base", "--format", "json"); err != nil {
		t.Fatalf("plan: %v\n%s", err, h.stderr.String())
	}

	var out struct {
		Nodes []struct {
			Name, Action string
			Reasons      []string
		}
	}

	if err := json.Unmarshal(h.stdout.Bytes(), &out); err != nil {
		t.Fatal(err)
	}

	for _, n := range out.Nodes {
		want := "noop"
		if n.Name == "k8s-node2" {
			want = "update"

			if len(n.Reasons) != 1 || !strings.Contains(n.Reasons[0], "the current state of this node is unknown (it does not render: ") || !strings.Contains(n.Reasons[0], "hostnam: unknown key") {
				t.Errorf("reasons = %q", n.Reasons)
			}
		}

		if n.Action != want {
			t.Errorf("%s: %s, want %s", n.Name, n.Action, want)
		}
	}
}
