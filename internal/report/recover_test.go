package report_test

import (
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/backup"
	"github.com/talops/talops/internal/report"
	"github.com/talops/talops/internal/testlab"
)

// clusterRecovery restores a three control plane cluster: the first waits in maintenance
// mode, the second still holds etcd data of its own, the third is gone.
func clusterRecovery() backup.RecoveryPlan {
	return backup.RecoveryPlan{
		Cluster: "homelab", Mode: backup.RecoverCluster, Store: "/backups",
		Backup: &backup.Manifest{Name: "homelab-20261129T120000Z", Cluster: "homelab", Time: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC), Node: "cp1", Revision: 4711},
		Age:    26*time.Hour + 90*time.Second,
		Why:    []string{"no control plane has a healthy etcd member: etcd lost quorum, or every control plane is gone"},
		Nodes: []backup.RecoveryNode{
			{Name: "cp1", Address: "10.0.0.1", Role: "controlplane", State: "in maintenance mode", Actions: []string{backup.ActionConfigure, backup.ActionUpload, backup.ActionBootstrap, backup.ActionWaitHealthy}},
			{Name: "cp2", Address: "10.0.0.2", Role: "controlplane", State: "runs its config; etcd: etcd reports etcdserver: no leader", Actions: []string{backup.ActionReset, backup.ActionConfigure, backup.ActionJoin}},
			{Name: "cp3", Address: "10.0.0.3", Role: "controlplane", State: "unreachable: connection refused"},
			{Name: "w1", Address: "10.0.0.4", Role: "worker", State: "runs its config"},
		},
	}
}

// A recovery's plan says which backup, how much is lost, and each node's steps in the
// order they are taken; once it ran, how long it took.
func TestWriteRecovery_PlanShowsTheBackupWhatIsLostAndEachNodesSteps(t *testing.T) {
	for _, tc := range []struct {
		name string
		view report.RecoveryView
	}{
		{"recover-cluster", report.RecoveryView{Plan: clusterRecovery()}},
		{"recover-cluster-ran", report.RecoveryView{Plan: clusterRecovery(), Ran: true, Took: 83*time.Second + 400*time.Millisecond}},
		{"recover-node", report.RecoveryView{Plan: backup.RecoveryPlan{
			Cluster: "homelab", Mode: backup.RecoverNode,
			Why: []string{"etcd has quorum: 2 of 3 voting members healthy (cp1, cp3)"},
			Nodes: []backup.RecoveryNode{
				{Name: "cp2", Address: "10.0.0.2", Role: "controlplane", State: "in maintenance mode", Actions: []string{backup.ActionRemoveMember, backup.ActionConfigure, backup.ActionJoin}},
				{Name: "cp1", Address: "10.0.0.1", Role: "controlplane", State: "etcd member healthy"},
			},
		}}},
	} {
		for _, format := range report.RecoveryFormats {
			t.Run(tc.name+"."+format, func(t *testing.T) {
				var buf strings.Builder
				if err := report.WriteRecovery(&buf, format, tc.view); err != nil {
					t.Fatal(err)
				}

				testlab.Golden(t, tc.name+"."+format, buf.String(), *update)
			})
		}
	}
}
