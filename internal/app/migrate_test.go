package app_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/siderolabs/talos/pkg/machinery/config/types/v1alpha1"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/migrate"
	"github.com/talops/talops/internal/rules"
	"github.com/talops/talops/internal/testlab"
)

// migrateDeps serves files as the directory "lab" and writes into them.
func migrateDeps(t *testing.T, files cluster.MapFiles) *app.Deps {
	t.Helper()

	d := deps(t, nil)
	d.OpenDir = func(dir string) (cluster.Files, func() error, error) {
		return files, func() error { return nil }, nil
	}
	d.WriteFile = func(name string, data []byte, _ os.FileMode) error {
		rel, err := filepath.Rel("lab", name)
		if err != nil {
			return err
		}

		files[filepath.ToSlash(rel)] = data

		return nil
	}

	return d
}

func TestMigrate_ReferenceLabMovesToTheDocumentsKeepsEveryNodesSettingsAndValidates(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	files := testlab.Files(t)
	d := migrateDeps(t, files)

	res, err := app.Migrate(ctx, d, app.MigrateOptions{Dir: "lab", ConfigVersion: "v1.14"})
	if err != nil {
		t.Fatal(err)
	}

	if !res.Written || len(res.Refusals) > 0 || res.Nodes != 5 {
		t.Fatalf("written %v, %d nodes, refusals %+v; want written, 5 nodes, none", res.Written, res.Nodes, res.Refusals)
	}

	if !strings.Contains(string(files["talops.yaml"]), "configVersion: v1.14\n") {
		t.Error("talops.yaml does not pin v1.14")
	}

	migrated, err := app.Load(ctx, d, "lab")
	if err != nil {
		t.Fatal(err)
	}

	for _, n := range migrated.Nodes {
		if n.Err != nil {
			t.Fatalf("%s: %v", n.Name, n.Err)
		}

		for _, f := range rules.ValidateConfig(n.Machine.Config, rules.ModeFor(migrated.Cluster.NodePlatform(n.Machine.Node)), true, func(string) (string, int) { return "", 0 }, n.Name) {
			if f.Severity == finding.Error {
				t.Errorf("%s: machinery refuses the migrated config: %s", n.Name, f.Message)
			}
		}
	}

	master, gpu := migrated.Nodes[0].Machine.Config, migrated.Nodes[1].Machine.Config
	if got := master.K8sNodeConfig().Taints()["node-role.kubernetes.io/control-plane"]; got != "NoSchedule" {
		t.Errorf("the control plane's taint is %q, want NoSchedule", got)
	}

	if got := gpu.K8sNodeConfig().Taints()["nvidia.com/gpu"]; got != "true:NoSchedule" {
		t.Errorf("the GPU worker's taint is %q", got)
	}

	for _, kind := range []string{"KubeNodeConfig", "KubeAuthenticationConfig", "KubeAuditPolicyConfig", "ResolverConfig", "SecurityProfileConfig"} {
		if !master.Has(kind) {
			t.Errorf("the control plane's config has no %s", kind)
		}
	}

	// Idempotent: the migrated repository has nothing left to migrate, and --check says so.
	again, err := app.Migrate(ctx, d, app.MigrateOptions{Dir: "lab", ConfigVersion: "v1.14", Check: true})
	if err != nil {
		t.Fatal(err)
	}

	if again.Migration.Changed() || again.Written {
		t.Fatalf("a second migration would change %d files", len(again.Migration.Files))
	}
}

func TestMigrate_CheckWritesNothing(t *testing.T) {
	t.Parallel()

	files := testlab.Files(t)
	before := maps.Clone(files)

	res, err := app.Migrate(context.Background(), migrateDeps(t, files), app.MigrateOptions{Dir: "lab", ConfigVersion: "v1.14", Check: true})
	if err != nil {
		t.Fatal(err)
	}

	if !res.Migration.Changed() || res.Written || len(res.Refusals) > 0 {
		t.Fatalf("changed %v, written %v, refusals %+v", res.Migration.Changed(), res.Written, res.Refusals)
	}

	if !maps.EqualFunc(files, before, func(a, b []byte) bool { return string(a) == string(b) }) {
		t.Fatal("--check wrote files")
	}
}

// Control planes that run workloads keep running them: the v1alpha1 switch becomes their
// KubeNodeConfig without the NoSchedule taint, the labels beside it move too, and the proof
// finds every node's settings unchanged.
func TestMigrate_ControlPlanesThatRunWorkloadsKeepDoingSo(t *testing.T) {
	t.Parallel()

	files := testlab.Files(t)
	files["patches/controlplane.yaml"] = []byte("# Control planes run workloads too.\ncluster:\n  allowSchedulingOnControlPlanes: true\nmachine:\n  nodeLabels:\n    zone: a\n")

	res, err := app.Migrate(context.Background(), migrateDeps(t, files), app.MigrateOptions{Dir: "lab", ConfigVersion: "v1.14"})
	if err != nil {
		t.Fatal(err)
	}

	if !res.Written || len(res.Refusals) > 0 {
		t.Fatalf("written %v, refusals %+v", res.Written, res.Refusals)
	}

	got := string(files["patches/controlplane.yaml"])
	if !strings.Contains(got, "kind: KubeNodeConfig") || !strings.Contains(got, "$patch: delete") || !strings.Contains(got, "zone: a") || strings.Contains(got, "allowSchedulingOnControlPlanes") {
		t.Errorf("patches/controlplane.yaml:\n%s", got)
	}
}

// Where the switch cannot move (a worker uses its patch), the migrated control plane would
// be tainted: the proof refuses, naming the node and the line.
func TestMigrate_RefusesWhenATaintWouldChangeAndNamesTheNodeAndLine(t *testing.T) {
	t.Parallel()

	files := testlab.Files(t)
	files["patches/common.yaml"] = []byte("# Control planes run workloads too.\ncluster:\n  allowSchedulingOnControlPlanes: true\nmachine:\n  nodeLabels:\n    zone: a\n")
	before := maps.Clone(files)

	res, err := app.Migrate(context.Background(), migrateDeps(t, files), app.MigrateOptions{Dir: "lab", ConfigVersion: "v1.14"})
	if err != nil {
		t.Fatal(err)
	}

	if res.Written || !maps.EqualFunc(files, before, func(a, b []byte) bool { return string(a) == string(b) }) {
		t.Fatal("a migration that changes a taint was written")
	}

	var taint *app.MigrateRefusal

	for i, r := range res.Refusals {
		if r.Setting == "node.taints" {
			taint = &res.Refusals[i]
		}
	}

	if taint == nil || taint.Node != "k8s-master" {
		t.Fatalf("refusals %+v, want k8s-master's node.taints", res.Refusals)
	}
}

func TestCompare_NamesAChangedEtcdKeyWithoutItsValue(t *testing.T) {
	t.Parallel()

	lab, err := app.Load(context.Background(), deps(t, nil), "lab")
	if err != nil {
		t.Fatal(err)
	}

	before := lab.Nodes[0].Machine.Config

	const other = "c2VjcmV0Ym94LXNlY3JldC10aGF0LW11c3Qtbm90LWxlYWs="

	after, err := before.PatchV1Alpha1(func(c *v1alpha1.Config) error {
		c.ClusterConfig.ClusterSecretboxEncryptionSecret = other //nolint:staticcheck // the secretbox secret is the etcd key that Compare must name without its value

		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	diffs := migrate.Compare(before, after)
	if len(diffs) != 1 || diffs[0].Setting != "etcd.encryptionKeys" {
		t.Fatalf("differences %+v, want etcd.encryptionKeys alone", diffs)
	}

	for _, secret := range []string{other, before.Cluster().SecretboxEncryptionSecret()} {
		if strings.Contains(diffs[0].Before+diffs[0].After, secret) {
			t.Fatal("the difference shows an encryption secret")
		}
	}
}

func TestMigrate_RefusesAnAPIServerThatCannotMoveWholeAndNamesWhy(t *testing.T) {
	t.Parallel()

	files := testlab.Files(t)
	testlab.Edit(t, files, "patches/controlplane.yaml", "      oidc-groups-claim: groups\n", "      oidc-groups-claim: groups\n      oidc-signing-algs: RS256\n")

	res, err := app.Migrate(context.Background(), migrateDeps(t, files), app.MigrateOptions{Dir: "lab", ConfigVersion: "v1.14"})
	if err != nil {
		t.Fatal(err)
	}

	named := false

	for _, l := range res.Migration.Left {
		named = named || (l.File == "patches/controlplane.yaml" && l.Line == 4 && strings.Contains(l.Reason, "oidc-signing-algs"))
	}

	if res.Written || !named {
		t.Fatalf("written %v, left %+v: want the signing algorithms named and nothing written", res.Written, res.Migration.Left)
	}

	invalid := false

	for _, r := range res.Refusals {
		invalid = invalid || (r.Node == "k8s-master" && r.File == "lab/patches/controlplane.yaml" && r.Line == 4 &&
			strings.Contains(r.Msg, "kube-apiserver config is already set in v1alpha1 config"))
	}

	if !invalid {
		t.Fatalf("refusals %+v, want k8s-master's apiServer left in v1alpha1 refused by machinery", res.Refusals)
	}
}

// A talhelper import writes a node's disk selector as an RFC 6902 patch of
// /machine/install: the move turns it into the UnattendedInstallConfig it stands for, and
// the proof finds every node's settings unchanged.
func TestMigrate_MovesAnRFC6902PatchOfTheInstallDisk(t *testing.T) {
	t.Parallel()

	files := testlab.Files(t)
	files["nodes/k8s-node3-disk.yaml"] = []byte("- op: add\n  path: /machine/install/diskSelector\n  value:\n    model: Samsung SSD 980*\n" +
		"- op: remove\n  path: /machine/install/disk\n" +
		"- op: add\n  path: /machine/nodeLabels/topology.kubernetes.io~1zone\n  value: a\n")
	testlab.Edit(t, files, "talops.yaml", "patches: [nodes/k8s-node3.yaml]", "patches: [nodes/k8s-node3.yaml, nodes/k8s-node3-disk.yaml]")

	res, err := app.Migrate(context.Background(), migrateDeps(t, files), app.MigrateOptions{Dir: "lab", ConfigVersion: "v1.14"})
	if err != nil {
		t.Fatal(err)
	}

	if !res.Written || len(res.Refusals) > 0 {
		t.Fatalf("written %v, refusals %+v", res.Written, res.Refusals)
	}

	got := string(files["nodes/k8s-node3-disk.yaml"])
	if !strings.Contains(got, "kind: UnattendedInstallConfig") || !strings.Contains(got, `glob("Samsung SSD 980*", disk.model)`) ||
		!strings.Contains(got, "kind: KubeNodeConfig") || strings.Contains(got, "op: ") {
		t.Errorf("nodes/k8s-node3-disk.yaml:\n%s", got)
	}
}
