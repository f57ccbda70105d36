package action_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/action"
	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/secrets"
	"github.com/talops/talops/internal/talos/talostest"
	"github.com/talops/talops/internal/testlab"
)

// A nightly drift job: plan against what the nodes run, the talosconfig given as an input.
func TestPlan_LiveWithTheTalosconfigInputReportsDrift(t *testing.T) {
	files := testlab.Files(t)

	// k8s-master runs Talos v1.14.6 with the lab's rendered config of that release.
	old := testlab.Files(t)
	testlab.SetVersions(t, old, "v1.14.6", "")

	ca := talostest.NewCA(t)
	cfg := talostest.Talosconfig(t, "homelab", ca.PEM, ca.ClientCert(t))
	key := cfg.Contexts["homelab"].Key

	running := renderNode(t, old, "k8s-master")
	master := talostest.Start(t, ca, talostest.Node{Config: running, Version: "v1.14.6"})
	down := talostest.Closed(t)

	r := newRunner(t, files, map[string]string{"dir": "examples/homelab", "live": "true", "talosconfig": string(talostest.TalosconfigBytes(t, cfg))})
	r.env["GITHUB_EVENT_NAME"] = "schedule"
	r.deps.TalosEndpoint = func(address string) string {
		if address == "10.0.20.100" {
			return master.Addr
		}

		return down
	}

	if err := action.Run(context.Background(), r.deps, []string{"plan"}); cli.ExitCode(err) != cli.ExitOK {
		t.Fatalf("plan: %v\n%s", err, r.stdout.String())
	}

	out := r.file(t, "GITHUB_OUTPUT")
	if !strings.Contains(out, "has-changes<<") || !strings.Contains(out, "\ntrue\n") || !strings.Contains(out, "\nk8s-master\n") {
		t.Errorf("outputs:\n%s", out)
	}

	if !strings.Contains(r.file(t, "GITHUB_STEP_SUMMARY"), "Talos v1.14.6 → v1.14.7") {
		t.Errorf("summary lacks the drift:\n%s", r.file(t, "GITHUB_STEP_SUMMARY"))
	}

	// The runner swallows ::add-mask:: commands: they are how the key gets masked.
	var log strings.Builder

	masked := false

	for _, line := range strings.Split(r.stdout.String(), "\n") {
		if strings.HasPrefix(line, "::add-mask::") {
			masked = masked || strings.Contains(key, strings.TrimPrefix(line, "::add-mask::"))

			continue
		}

		log.WriteString(line + "\n")
	}

	if !masked {
		t.Error("the talosconfig key was not registered with the runner's masking")
	}

	for name, text := range map[string]string{"log": log.String(), "summary": r.file(t, "GITHUB_STEP_SUMMARY"), "outputs": out} {
		if strings.Contains(text, key) {
			t.Errorf("%s contains the talosconfig key", name)
		}
	}
}

// renderNode is a node's config as talops renders it from files.
func renderNode(t *testing.T, files cluster.MapFiles, name string) []byte {
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

	n, err := render.One(c, b, c.Spec.Nodes[c.NodeIndex(name)], render.Options{Installer: render.FactoryInstaller(ids)})
	if err != nil {
		t.Fatal(err)
	}

	data, err := n.Bytes()
	if err != nil {
		t.Fatal(err)
	}

	return data
}

// A nightly drift job that reads no node fails instead of passing on a plan of nothing.
func TestPlan_LiveWithEveryNodeUnreachableFails(t *testing.T) {
	ca := talostest.NewCA(t)
	cfg := talostest.Talosconfig(t, "homelab", ca.PEM, ca.ClientCert(t))
	down := talostest.Closed(t)

	r := newRunner(t, testlab.Files(t), map[string]string{"dir": "examples/homelab", "live": "true", "talosconfig": string(talostest.TalosconfigBytes(t, cfg))})
	r.env["GITHUB_EVENT_NAME"] = "schedule"
	r.deps.TalosEndpoint = func(string) string { return down }

	err := action.Run(context.Background(), r.deps, []string{"plan"})
	if cli.ExitCode(err) != cli.ExitFailure || !strings.Contains(err.Error(), "plan --live read no node: every node is unreachable") {
		t.Fatalf("plan with every node down: exit %d, %v", cli.ExitCode(err), err)
	}

	if !strings.Contains(r.file(t, "GITHUB_STEP_SUMMARY"), "Plan refused: no node's current state could be read") {
		t.Errorf("summary does not say the plan is refused:\n%s", r.file(t, "GITHUB_STEP_SUMMARY"))
	}

	// No apply may be given the hash of a plan of nothing read: none is shown nor output.
	if summary := r.file(t, "GITHUB_STEP_SUMMARY"); strings.Contains(summary, "talops:plan-hash") || !strings.Contains(summary, "no plan hash") {
		t.Errorf("the refused plan's summary carries a hash:\n%s", summary)
	}

	if out := r.file(t, "GITHUB_OUTPUT"); !regexp.MustCompile(`plan-hash<<\S+\n\n`).MatchString(out) {
		t.Errorf("the refused plan's outputs carry a hash:\n%s", out)
	}
}
