package report_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/talops/talops/internal/migrate"
	"github.com/talops/talops/internal/report"
	"github.com/talops/talops/internal/testlab"
)

// checkedMigration is migrate --check on a talhelper import at the 1.11 contract: moves
// into five documents (nodeLabels from four nodes' files, more than a line names), the old
// defaults kept, what stays, and a file added.
func checkedMigration() report.MigrateView {
	res := &migrate.Result{
		Files: []migrate.File{{Path: "talops.yaml"}, {Path: "patches/talhelper-cluster.yaml"}, {Path: "nodes/cp1-talhelper.yaml"}, {Path: "patches/migrated-controlplane.yaml"}},
		Added: []string{"patches/migrated-controlplane.yaml"},
		Moved: []migrate.Move{
			{File: "patches/talhelper-cluster.yaml", Line: 3, From: "machine.kubelet.extraArgs", To: "KubeletConfig"},
			{File: "patches/talhelper-cluster.yaml", Line: 5, From: "machine.kubelet.nodeIP", To: "KubeNodeConfig"},
			{File: "nodes/cp1-talhelper.yaml", Line: 2, From: "(RFC 6902 patch)", To: "a strategic-merge patch"},
			{File: "nodes/cp1-talhelper.yaml", Line: 14, From: "machine.install.extraKernelArgs", To: "the schematic's extraKernelArgs (there already)"},
			{File: "nodes/cp1-talhelper.yaml", Line: 9, From: "machine.nodeLabels", To: "KubeNodeConfig"},
			{File: "nodes/cp2-talhelper.yaml", Line: 9, From: "machine.nodeLabels", To: "KubeNodeConfig"},
			{File: "nodes/cp3-talhelper.yaml", Line: 9, From: "machine.nodeLabels", To: "KubeNodeConfig"},
			{File: "nodes/w1-talhelper.yaml", Line: 9, From: "machine.nodeLabels", To: "KubeNodeConfig"},
			{File: "patches/talhelper-cluster.yaml", From: "the v1.11 contract's default: workload isolation off", To: "SecurityProfileConfig", Kept: true},
			{File: "patches/migrated-controlplane.yaml", From: "the v1.11 contract's default: kube-apiserver without startup probes", To: "KubeAPIServerConfig startupProbes", Kept: true},
		},
		Left: []migrate.Left{
			{File: "patches/global-01.yaml", Line: 2, Path: "machine.sysctls", Reason: "its document is SysctlConfig, which this migration does not write: still valid in the v1alpha1 document"},
			{File: "nodes/w1-talhelper.yaml", Line: 12, Path: "machine.kernel.modules", Reason: "its document is KernelModuleConfig, which this migration does not write: still valid in the v1alpha1 document"},
		},
	}

	return report.MigrateView{Dir: "lab", From: "v1.11", Target: "v1.14", Summary: migrate.Summarize(res), Nodes: 4}
}

// refusedMigration is one the proof refuses: a kubelet mount with no place, on a node.
func refusedMigration() report.MigrateView {
	v := checkedMigration()
	v.Stays = append(v.Stays, migrate.Stay{Path: "machine.kubelet", Reason: "extraMounts has no place in the 1.14 documents", Places: []string{"patches/global-05.yaml:2"}})
	v.Refusals = []migrate.Refusal{{Node: "cp1", Setting: "kubelet.extraMounts", File: "lab/patches/global-05.yaml", Line: 2, Msg: "the migrated config is invalid: kubelet config is already set in v1alpha1 config (.machine.kubelet)"}}

	return v
}

func TestMigrate_CheckIsOneScreenOfWhatMovesAndWhatStays(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name string
		view report.MigrateView
	}{
		{"proven", checkedMigration()},
		{"refused", refusedMigration()},
	} {
		for _, format := range report.MigrateFormats {
			t.Run(tc.name+"/"+format, func(t *testing.T) {
				t.Parallel()

				var b bytes.Buffer
				if err := report.WriteMigrate(&b, format, tc.view); err != nil {
					t.Fatal(err)
				}

				got := b.String()
				if format == report.FormatText {
					// One screen: what a terminal shows without scrolling.
					if lines := strings.Count(got, "\n"); lines > 24 {
						t.Errorf("%d lines, want one screen (24 at most):\n%s", lines, got)
					}

					// The moves are counted from the typed moves: four files' labels are one line.
					if !strings.Contains(got, "machine.nodeLabels") || strings.Count(got, "machine.nodeLabels") != 1 || !strings.Contains(got, "and 1 more") {
						t.Errorf("the labels of four files are not one line naming three places:\n%s", got)
					}
				} else {
					var back report.MigrateView
					if err := json.Unmarshal(b.Bytes(), &back); err != nil || back.Target != "v1.14" || len(back.Moves) != len(tc.view.Moves) {
						t.Errorf("the JSON does not read back (%v):\n%s", err, got)
					}
				}

				testlab.Golden(t, "migrate-check-"+tc.name+"."+format, got, *update)
			})
		}
	}
}

func TestMigrate_AFormatTheViewLacksIsAnError(t *testing.T) {
	t.Parallel()

	var unknown *report.UnknownFormatError
	if err := report.WriteMigrate(&bytes.Buffer{}, report.FormatMarkdown, checkedMigration()); !errors.As(err, &unknown) {
		t.Errorf("markdown: %v, want an unknown format", err)
	}
}
