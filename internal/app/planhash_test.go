package app_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/testlab"
)

// healthCheck is a check of talops.yaml whose expression is expr, as YAML writes it.
func healthCheck(expr string) string {
	return "healthChecks:\n  - name: ceph\n    apiVersion: ceph.rook.io/v1\n    kind: CephCluster\n" +
		"    namespace: rook-ceph\n    objectName: rook-ceph\n    expr: " + expr + "\n"
}

// berlin is a maintenance: section: weekday nights in Berlin.
const berlin = "maintenance:\n  timeZone: Europe/Berlin\n  windows:\n    - days: [mon-fri]\n      start: \"22:00\"\n      duration: 4h\n"

// tokens are two machine tokens a patch may set: neither may reach a plan.
var tokens = [2]string{"k8ry1p.aq3tw9slusu7f0zb", "x2m9vd.7ydhn3l0q8wpcc4e"}

// tokenPatch sets machine.token in the lab's common patch.
func tokenPatch(token string) func(testing.TB, cluster.MapFiles) {
	return func(t testing.TB, f cluster.MapFiles) {
		edit(t, f, "patches/common.yaml", "machine:\n", "machine:\n  token: "+token+"\n")
	}
}

// appendTo adds text to the end of a file.
func appendTo(name, text string) func(testing.TB, cluster.MapFiles) {
	return func(_ testing.TB, f cluster.MapFiles) { f[name] = append(bytes.Clone(f[name]), text...) }
}

// planned is the plan of the lab changed by change, against the lab as it is; the plan
// computed a chunk at a time and the one over every node (apply's) must agree.
func planned(t *testing.T, change func(testing.TB, cluster.MapFiles)) *plan.Plan {
	t.Helper()

	head := testlab.Files(t)
	change(t, head)

	opts := app.PlanOptions{Dir: "lab", Against: "base", Offline: true}

	streamed, err := app.Plan(context.Background(), twoStates(t, head, testlab.Files(t)), opts)
	if err != nil {
		t.Fatal(err)
	}

	whole, err := app.PlanOverEveryNode(context.Background(), twoStates(t, head, testlab.Files(t)), opts)
	if err != nil {
		t.Fatal(err)
	}

	if streamed.Plan.Blocked {
		t.Fatalf("no plan: %+v", streamed.Findings)
	}

	if streamed.Plan.Hash != whole.Plan.Hash {
		t.Fatalf("the streamed plan's hash %s is not apply's %s", streamed.Plan.Hash, whole.Plan.Hash)
	}

	return streamed.Plan
}

// Two states of the repository that apply would act on differently, or that differ in
// any byte apply reads, never share a plan hash: what was reviewed is what is applied.
func TestPlanHash_BindsTheExactInputs(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name string
		a, b func(testing.TB, cluster.MapFiles)
	}{
		{
			name: "a CEL comment that swallows the rest of its line, and the same with a line break",
			a:    appendTo("talops.yaml", healthCheck(`'object.status.ceph.health == "HEALTH_OK" // strict || true'`)),
			b:    appendTo("talops.yaml", healthCheck("|\n      object.status.ceph.health == \"HEALTH_OK\" // strict\n      || true")),
		},
		{
			name: "whitespace inside a string literal",
			a:    appendTo("talops.yaml", healthCheck(`'object.status.ceph.health == "HEALTH_OK"'`)),
			b:    appendTo("talops.yaml", healthCheck(`'object.status.ceph.health == "HEALTH_OK "'`)),
		},
		{
			name: "a maintenance section removed",
			a:    appendTo("talops.yaml", berlin),
			b:    func(testing.TB, cluster.MapFiles) {},
		},
		{
			name: "a maintenance section in another time zone",
			a:    appendTo("talops.yaml", berlin),
			b:    appendTo("talops.yaml", strings.Replace(berlin, "Europe/Berlin", "Pacific/Auckland", 1)),
		},
		{
			name: "a maintenance window widened to a week",
			a:    appendTo("talops.yaml", berlin),
			b:    appendTo("talops.yaml", strings.Replace(berlin, "duration: 4h", "duration: 168h", 1)),
		},
		{
			name: "drains turned off in the apply: section",
			a:    func(testing.TB, cluster.MapFiles) {},
			b:    appendTo("talops.yaml", "apply:\n  drain: false\n"),
		},
		{
			name: "removals allowed in the apply: section",
			a:    appendTo("talops.yaml", "apply:\n  drain: true\n"),
			b:    appendTo("talops.yaml", "apply:\n  allowRemove: true\n"),
		},
		{
			name: "two machine tokens set by a patch",
			a:    tokenPatch(tokens[0]),
			b:    tokenPatch(tokens[1]),
		},
		{
			name: "a patch edited in its whitespace only",
			a:    func(testing.TB, cluster.MapFiles) {},
			b:    appendTo("patches/common.yaml", "\n\n"),
		},
		{
			name: "a comment added to talops.yaml",
			a:    func(testing.TB, cluster.MapFiles) {},
			b:    appendTo("talops.yaml", "# reviewed by nobody\n"),
		},
		{
			name: "the secrets bundle re-encoded with the same values",
			a:    func(testing.TB, cluster.MapFiles) {},
			b:    appendTo("secrets.THROWAWAY.yaml", "\n"),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			a, b := planned(t, tc.a), planned(t, tc.b)
			if a.Hash == b.Hash {
				t.Errorf("both states have the plan hash %s", a.Hash)
			}
		})
	}
}

// The same bytes give the same hash, whichever way the plan is computed: the binding
// depends on the inputs only, never on a run.
func TestPlanHash_SameInputsSameHash(t *testing.T) {
	t.Parallel()

	change := appendTo("talops.yaml", berlin+healthCheck("|\n      object.status.ceph.health == \"HEALTH_OK\" // strict\n      || true"))

	if a, b := planned(t, change), planned(t, change); a.Hash != b.Hash {
		t.Errorf("one state, two hashes: %s %s", a.Hash, b.Hash)
	}
}

// The plan shows what its hash binds: a health check's expression as written, line
// breaks and all, and a changed maintenance section.
func TestPlan_ShowsTheExpressionAsWrittenAndTheMaintenanceChange(t *testing.T) {
	t.Parallel()

	p := planned(t, appendTo("talops.yaml", strings.Replace(berlin, "duration: 4h", "duration: 168h", 1)+
		healthCheck("|\n      object.status.ceph.health == \"HEALTH_OK\" // strict\n      || true")))

	want := "ceph: CephCluster rook-ceph/rook-ceph (ceph.rook.io/v1), within 5m0s, expression:\n" +
		"object.status.ceph.health == \"HEALTH_OK\" // strict\n|| true"
	if !slices.Equal(p.HealthChecks, []string{want}) {
		t.Errorf("health checks %q, want %q", p.HealthChecks, want)
	}

	if m := p.Maintenance; m == nil || m.From != "" || m.To != "mon-fri 22:00 for 168h (Europe/Berlin)" {
		t.Errorf("maintenance change %+v", m)
	}
}

// The plan shows the alertmanager: section it binds: the Alertmanager, the matchers and
// the silences; another matcher is another hash.
func TestPlan_ShowsTheAlertmanagerGateAndSilences(t *testing.T) {
	t.Parallel()

	section := "alertmanager:\n  url: http://am.monitoring:9093\n  matchers: ['severity=\"critical\"']\n  silence: true\n"
	p := planned(t, appendTo("talops.yaml", section))

	want := []string{
		`Alertmanager http://am.monitoring:9093: alerts matching severity="critical", neither silenced nor inhibited, hold the rollout`,
		`each node silenced while it changes: instance=~"<address>(:.*)?", node="<Kubernetes node>"`,
	}
	if !slices.Equal(p.Alerts, want) {
		t.Errorf("alerts %q\nwant   %q", p.Alerts, want)
	}

	other := planned(t, appendTo("talops.yaml", strings.Replace(section, "critical", "warning", 1)))
	if other.Hash == p.Hash {
		t.Errorf("two matchers, one hash %s", p.Hash)
	}
}
