package migrate_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/migrate"
)

// A KubeNodeConfig written for control planes names the NoSchedule taint v1alpha1 gave
// them, unless the repository lets workloads run there (the v1alpha1 switch, or a
// KubeNodeConfig that deletes the taint): writing it would take that back.
func TestRewrite_ControlPlaneTaintIsWrittenUnlessTheRepositorySchedulesOnControlPlanes(t *testing.T) {
	t.Parallel()

	labels := "machine:\n  nodeLabels:\n    rack: r1\n"

	cases := []struct {
		name, other string
		tainted     bool
	}{
		{"no other patch", "", true},
		{"allowSchedulingOnControlPlanes", "cluster:\n  allowSchedulingOnControlPlanes: true\n", false},
		{"allowSchedulingOnControlPlanes false", "cluster:\n  allowSchedulingOnControlPlanes: false\n", true},
		{"a KubeNodeConfig deleting the taint", "apiVersion: v1alpha1\nkind: KubeNodeConfig\ntaints:\n  node-role.kubernetes.io/control-plane:\n    $patch: delete\n", false},
	}

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			patches := []migrate.Patch{{Path: "cp.yaml", Data: []byte(labels), ControlPlanes: 1}}
			if tc.other != "" {
				patches = append(patches, migrate.Patch{Path: "other.yaml", Data: []byte(tc.other), ControlPlanes: 1})
			}

			res, err := migrate.Rewrite(migrate.Input{From: "v1.14", Target: "v1.14", Talops: []byte("configVersion: v1.14\n"), ControlPlanes: 1, Patches: patches})
			if err != nil {
				t.Fatal(err)
			}

			var got string

			for _, f := range res.Files {
				if f.Path == "cp.yaml" {
					got = string(f.Data)
				}
			}

			if !strings.Contains(got, "kind: KubeNodeConfig") || !strings.Contains(got, "rack: r1") {
				t.Fatalf("the labels did not move:\n%s", got)
			}

			if tainted := strings.Contains(got, "NoSchedule"); tainted != tc.tainted {
				t.Errorf("taint written = %v, want %v:\n%s", tainted, tc.tainted, got)
			}
		})
	}
}

// allowSchedulingOnControlPlanes becomes the control planes' KubeNodeConfig without its
// NoSchedule taint, from a patch only control planes use; a patch a worker uses too keeps
// it and says why (deleting a taint a worker does not have fails the patch).
func TestRewrite_SchedulingOnControlPlanesDeletesTheirTaintFromAControlPlanePatchOnly(t *testing.T) {
	t.Parallel()

	patch := "cluster:\n  allowSchedulingOnControlPlanes: true\n"

	got, res := field(t, patch, 1, 0)

	want := "apiVersion: v1alpha1\nkind: KubeNodeConfig\nlabels:\n  node-role.kubernetes.io/control-plane: \"\"\ntaints:\n  node-role.kubernetes.io/control-plane:\n    $patch: delete\n"
	if got != want {
		t.Errorf("rewritten patch:\n%s\nwant:\n%s", got, want)
	}

	if len(res.Moved) != 1 || res.Moved[0].From != "cluster.allowSchedulingOnControlPlanes" || len(res.Left) > 0 {
		t.Errorf("moved %+v, left %+v", res.Moved, res.Left)
	}

	shared, res := field(t, patch, 1, 1)
	if shared != patch || len(res.Left) != 1 || !strings.Contains(res.Left[0].Reason, "a worker uses this file") {
		t.Errorf("a patch a worker uses: got\n%s\nleft %+v", shared, res.Left)
	}
}

// The CNI's documents are control planes' only: a cni in a patch a worker uses too becomes
// them in the patch every control plane uses (here one the migration adds), the network
// settings beside it a KubeNetworkConfig where they were.
func TestRewrite_ACNIInAPatchAWorkerUsesGoesToTheControlPlanes(t *testing.T) {
	t.Parallel()

	patch := "cluster:\n  network:\n    dnsDomain: lab.internal\n    cni:\n      name: none\n"

	res, err := migrate.Rewrite(migrate.Input{
		From: "v1.14", Target: "v1.14", Talops: []byte("configVersion: v1.14\npatches:\n  all: [p.yaml]\n"), ControlPlanes: 1, Workers: 1,
		Patches: []migrate.Patch{{Path: "p.yaml", Data: []byte(patch), ControlPlanes: 1, Workers: 1}},
	})
	if err != nil {
		t.Fatal(err)
	}

	files := map[string]string{}
	for _, f := range res.Files {
		files[f.Path] = string(f.Data)
	}

	if want := "apiVersion: v1alpha1\nkind: KubeNetworkConfig\ndnsDomain: lab.internal\n"; files["p.yaml"] != want {
		t.Errorf("p.yaml:\n%s\nwant:\n%s", files["p.yaml"], want)
	}

	if want := "apiVersion: v1alpha1\nkind: KubeFlannelCNIConfig\n$patch: delete\n"; files["patches/migrated-controlplane.yaml"] != want {
		t.Errorf("patches/migrated-controlplane.yaml:\n%s\nwant:\n%s", files["patches/migrated-controlplane.yaml"], want)
	}

	if want := "configVersion: v1.14\npatches:\n  controlplane: [patches/migrated-controlplane.yaml]\n  all: [p.yaml]\n"; files["talops.yaml"] != want {
		t.Errorf("talops.yaml:\n%s\nwant:\n%s", files["talops.yaml"], want)
	}

	var moved []string
	for _, m := range res.Moved {
		moved = append(moved, m.File+":"+m.From+"→"+m.To)
	}

	if want := "p.yaml:cluster.network→KubeNetworkConfig p.yaml:cluster.network.cni→KubeFlannelCNIConfig in patches/migrated-controlplane.yaml"; strings.Join(moved, " ") != want {
		t.Errorf("moved %q, want %q", strings.Join(moved, " "), want)
	}
}

// jfroy-flatops' shape: a node's patch taints its control plane PreferNoSchedule, and a
// later patch every control plane uses sets allowSchedulingOnControlPlanes. v1alpha1's
// generator never wrote the NoSchedule taint, so the node's own taint stayed; the delete
// goes into the patch every control plane uses first, before the node's patch, not where
// the switch was (after it, the delete would take the node's taint back).
func TestRewrite_SchedulingOnControlPlanesDeletesTheirTaintBeforeANodesOwnTaint(t *testing.T) {
	t.Parallel()

	node := "- op: add\n  path: /machine/nodeTaints\n  value:\n    node-role.kubernetes.io/control-plane: :PreferNoSchedule\n"
	later := "cluster:\n  allowSchedulingOnControlPlanes: true\n  scheduler:\n    extraArgs:\n      bind-address: 0.0.0.0\n"

	res, err := migrate.Rewrite(migrate.Input{
		From: "v1.14", Target: "v1.14", Talops: []byte("configVersion: v1.14\n"), ControlPlanes: 2,
		Patches: []migrate.Patch{
			{Path: "patches/talhelper-controlplane.yaml", Data: []byte("cluster:\n  apiServer:\n    certSANs: [k8s.example.org]\n"), ControlPlanes: 2},
			{Path: "nodes/cp1.yaml", Data: []byte(node), ControlPlanes: 1},
			{Path: "patches/controlplane-01.yaml", Data: []byte(later), ControlPlanes: 2},
		},
	})
	if err != nil {
		t.Fatal(err)
	}

	files := map[string]string{}
	for _, f := range res.Files {
		files[f.Path] = string(f.Data)
	}

	deletion := "taints:\n  node-role.kubernetes.io/control-plane:\n    $patch: delete\n"
	if first := files["patches/talhelper-controlplane.yaml"]; !strings.Contains(first, "kind: KubeNodeConfig") || !strings.Contains(first, deletion) {
		t.Errorf("the patch every control plane uses first does not delete the taint:\n%s", first)
	}

	if strings.Contains(files["patches/controlplane-01.yaml"], "taints") {
		t.Errorf("the taint is deleted where the switch was, after the node's own taint:\n%s", files["patches/controlplane-01.yaml"])
	}

	if own := files["nodes/cp1.yaml"]; !strings.Contains(own, "node-role.kubernetes.io/control-plane: :PreferNoSchedule") {
		t.Errorf("the node's own taint did not move:\n%s", own)
	}

	if len(res.Left) > 0 {
		t.Errorf("left %+v", res.Left)
	}
}
