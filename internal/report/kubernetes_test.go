package report_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/mask"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/report"
	"github.com/talops/talops/internal/secrets"
	"github.com/talops/talops/internal/testlab"
)

// labState is a state of the lab as a plan reads it, with every node on talos.
func labState(t *testing.T, files cluster.MapFiles) (plan.State, *secrets.Bundle) {
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

	s := plan.State{TalosVersion: c.Spec.TalosVersion, KubernetesVersion: c.Spec.KubernetesVersion, SecretsFingerprint: "same"}

	for _, r := range render.All(context.Background(), c, b, render.Options{Installer: render.FactoryInstaller(ids)}) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}

		s.Nodes = append(s.Nodes, plan.NodeState{Name: r.Name, Role: r.Machine.Node.Role, Schematic: r.Machine.Node.Schematic, Installer: r.Machine.Installer, Config: r.Machine.Config})
	}

	return s, b
}

// kubernetesPlan is the plan of a kubernetesVersion bump on three control planes and two
// workers; edit changes the current state before it is planned.
func kubernetesPlan(t *testing.T, from string, edit func(*plan.State)) *plan.Plan {
	t.Helper()

	current, desired := testlab.Scaled(t, 5), testlab.Scaled(t, 5)
	testlab.SetVersions(t, current, "", from)

	cur, b := labState(t, current)
	des, _ := labState(t, desired)

	if edit != nil {
		edit(&cur)
	}

	p, err := plan.Compute(context.Background(), "homelab", cur, des, mask.New(b.Values()...))
	if err != nil {
		t.Fatal(err)
	}

	return p
}

// withoutDiffs keeps the goldens on the Kubernetes section: the diffs are the plan's own.
func withoutDiffs(p *plan.Plan) *plan.Plan {
	for i := range p.Nodes {
		p.Nodes[i].Diff = ""
	}

	return p
}

func TestPlanViews_KubernetesUpgradeIsItsOwnSection(t *testing.T) {
	p := withoutDiffs(kubernetesPlan(t, "v1.36.4", nil))

	for _, format := range report.PlanFormats {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := report.WritePlan(&buf, format, p, nil, len(p.Nodes), report.PlanView{Version: "v0.0.0-test"}); err != nil {
				t.Fatal(err)
			}

			got := buf.String()
			if strings.Contains(got, "talosctl upgrade-k8s") {
				t.Errorf("the %s view still says to run talosctl upgrade-k8s", format)
			}

			testlab.Golden(t, "plan-kubernetes."+format, got, *update)
		})
	}
}

func TestPlanViews_RefusedKubernetesUpgradeSaysWhyAndWhichNode(t *testing.T) {
	p := withoutDiffs(kubernetesPlan(t, "v1.36.4", func(s *plan.State) { s.Nodes[4].TalosVersion = "v1.11.5" }))

	for _, format := range []string{report.FormatText, report.FormatMarkdown} {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := report.WritePlan(&buf, format, p, nil, len(p.Nodes), report.PlanView{Version: "v0.0.0-test"}); err != nil {
				t.Fatal(err)
			}

			if !strings.Contains(buf.String(), "node node-04 runs Talos v1.11.5, which does not support Kubernetes v1.37.1") {
				t.Errorf("the %s view does not name the node and its release:\n%s", format, buf.String())
			}

			testlab.Golden(t, "plan-kubernetes-refused."+format, buf.String(), *update)
		})
	}
}
