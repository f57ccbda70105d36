package app_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/rules"
	"github.com/talops/talops/internal/testlab"
)

// exampleDeps serves an example as the directory "example", which migrate writes into,
// and its copy from before as "before".
func exampleDeps(t *testing.T, files, before cluster.MapFiles) *app.Deps {
	t.Helper()

	d := deps(t, nil)
	d.OpenDir = func(dir string) (cluster.Files, func() error, error) {
		switch dir {
		case "example":
			return files, func() error { return nil }, nil
		case "before":
			return before, func() error { return nil }, nil
		}

		return nil, nil, errors.New("no such directory")
	}
	d.WriteFile = func(name string, data []byte, _ os.FileMode) error {
		rel, err := filepath.Rel("example", name)
		if err != nil {
			return err
		}

		files[filepath.ToSlash(rel)] = data

		return nil
	}

	return d
}

// TestMigrate_EveryExampleMovesTo114ValidatesAndPlansAsLayoutOnly holds issue 27's "done
// when" for each repository under examples/ (the reference lab among them), on a copy of
// it: migrate to the 1.14 layout writes, every migrated config passes machinery's strict
// validation, the plan against the configs the example had before says layout only for
// every node, with no reboot, and migrate --check then finds nothing to do.
func TestMigrate_EveryExampleMovesTo114ValidatesAndPlansAsLayoutOnly(t *testing.T) {
	t.Parallel()

	examples := testlab.Examples(t)
	if _, ok := examples["homelab"]; !ok {
		t.Fatalf("the reference lab is not among the examples %v", slices.Sorted(maps.Keys(examples)))
	}

	for name, files := range examples {
		t.Run(name, func(t *testing.T) {
			t.Parallel()

			ctx := context.Background()
			d := exampleDeps(t, files, maps.Clone(files))

			res, err := app.Migrate(ctx, d, app.MigrateOptions{Dir: "example", ConfigVersion: "v1.14"})
			if err != nil {
				t.Fatal(err)
			}

			if !res.Written || len(res.Refusals) > 0 {
				t.Fatalf("written %v, refusals %+v", res.Written, res.Refusals)
			}

			validates(t, ctx, d)

			p, err := app.Plan(ctx, d, app.PlanOptions{Dir: "example", Against: "before", Offline: true})
			if err != nil {
				t.Fatal(err)
			}

			for _, n := range p.Plan.Nodes {
				if !n.LayoutOnly || n.Action != plan.Update || n.NeedsReboot {
					t.Errorf("%s: %s, layout only %v, reboot %v; reasons:\n%v", n.Name, n.Action, n.LayoutOnly, n.NeedsReboot, n.Reasons)
				}
			}

			nodes := len(p.Plan.Nodes)
			if want := fmt.Sprintf("Plan: %d nodes — %d updates (layout only)", nodes, nodes); p.Plan.Summary() != want {
				t.Errorf("summary %q, want %q", p.Plan.Summary(), want)
			}

			again, err := app.Migrate(ctx, d, app.MigrateOptions{Dir: "example", ConfigVersion: "v1.14", Check: true})
			if err != nil {
				t.Fatal(err)
			}

			if again.Migration.Changed() {
				t.Errorf("migrate --check on the migrated example would change %d files", len(again.Migration.Files))
			}
		})
	}
}

// validates fails the test for every config of the example machinery refuses, strictly.
func validates(t *testing.T, ctx context.Context, d *app.Deps) {
	t.Helper()

	migrated, err := app.Load(ctx, d, "example")
	if err != nil {
		t.Fatal(err)
	}

	for _, n := range migrated.Nodes {
		if n.Err != nil {
			t.Fatalf("%s does not render: %v", n.Name, n.Err)
		}

		for _, f := range rules.ValidateConfig(n.Machine.Config, rules.ModeFor(migrated.Cluster.NodePlatform(n.Machine.Node)), true, func(string) (string, int) { return "", 0 }, n.Name) {
			if f.Severity == finding.Error {
				t.Errorf("%s: machinery refuses the migrated config: %s", n.Name, f.Message)
			}
		}
	}
}

// TestMigrate_ComponentSectionsMoveToTheirDocumentsAndPlanAsLayoutOnly: the lab with
// coreDNS, kube-proxy, controller manager and scheduler settings in its control-plane patch
// migrates them into their documents, keeps every node's settings, validates, and plans
// as layout only.
func TestMigrate_ComponentSectionsMoveToTheirDocumentsAndPlanAsLayoutOnly(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	files := testlab.Files(t)
	testlab.Edit(t, files, "patches/controlplane.yaml", "cluster:\n", "cluster:\n"+
		"  coreDNS:\n    image: registry.k8s.io/coredns/coredns:v1.12.4\n"+
		"  proxy:\n    image: registry.k8s.io/kube-proxy:v1.37.1\n    mode: nftables\n"+
		"  controllerManager:\n    extraArgs:\n      bind-address: 0.0.0.0\n"+
		"  scheduler:\n    extraArgs:\n      bind-address: 0.0.0.0\n")

	d := exampleDeps(t, files, maps.Clone(files))

	res, err := app.Migrate(ctx, d, app.MigrateOptions{Dir: "example", ConfigVersion: "v1.14"})
	if err != nil {
		t.Fatal(err)
	}

	if !res.Written || len(res.Refusals) > 0 {
		t.Fatalf("written %v, refusals %+v", res.Written, res.Refusals)
	}

	var moved []string

	for _, m := range res.Migration.Moved {
		if m.File == "patches/controlplane.yaml" && !m.Kept {
			moved = append(moved, m.From+" → "+m.To)
		}
	}

	want := []string{
		"cluster.apiServer.auditPolicy → KubeAuditPolicyConfig", "cluster.apiServer.extraArgs.oidc-* → KubeAuthenticationConfig",
		"cluster.coreDNS → KubeCoreDNSConfig", "cluster.proxy → KubeProxyConfig",
		"cluster.controllerManager → KubeControllerManagerConfig", "cluster.scheduler → KubeSchedulerConfig",
	}
	if !slices.Equal(moved, want) {
		t.Errorf("moved\n%q\nwant\n%q", moved, want)
	}

	validates(t, ctx, d)

	p, err := app.Plan(ctx, d, app.PlanOptions{Dir: "example", Against: "before", Offline: true})
	if err != nil {
		t.Fatal(err)
	}

	if got := p.Plan.Summary(); got != "Plan: 5 nodes — 5 updates (layout only)" {
		t.Errorf("summary %q", got)
	}
}
