package report_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/report"
	"github.com/talops/talops/internal/testlab"
)

// settingsPlan changes no config, but moves the Proxmox API and one node's VM.
func settingsPlan() *plan.Plan {
	vmid := plan.SettingChange{Key: "proxmox.vmid", From: "204", To: "999"}

	return &plan.Plan{
		Cluster: "homelab", Hash: strings.Repeat("cd", 32),
		Settings: []plan.SettingChange{{Key: "proxmox.url", From: "https://pve.lab:8006/api2/json", To: "https://evil.example:8006/api2/json"}},
		Nodes: []plan.Node{
			{Name: "k8s-node1", Role: "worker", Action: plan.Noop},
			{Name: "k8s-node4", Role: "worker", Action: plan.Noop, Settings: []plan.SettingChange{vmid}, Reasons: []string{vmid.String() + ": apply --proxmox-reset and --proxmox-vms act on this VM"}},
		},
	}
}

func TestWritePlan_SettingChangesAreShownInEveryFormat(t *testing.T) {
	for _, format := range report.PlanFormats {
		t.Run(format, func(t *testing.T) {
			var buf strings.Builder
			if err := report.WritePlan(&buf, format, settingsPlan(), nil, 2, report.PlanView{Version: "v0.0.0-test"}); err != nil {
				t.Fatal(err)
			}

			got := buf.String()
			for _, want := range []string{"proxmox.vmid", "999", "https://evil.example:8006/api2/json", "settings change: 1 node and the cluster"} {
				if !strings.Contains(got, want) {
					t.Errorf("%s view lacks %q", format, want)
				}
			}

			if strings.Contains(got, "no changes") {
				t.Errorf("%s view says no changes", format)
			}

			testlab.Golden(t, "plan-settings."+format, got, *update)
		})
	}
}
