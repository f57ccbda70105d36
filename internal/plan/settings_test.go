package plan_test

import (
	"context"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/mask"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/testlab"
)

// withProxmox is the lab with a proxmox: section.
func withProxmox(t *testing.T) cluster.MapFiles {
	t.Helper()

	files := testlab.Files(t)
	if !strings.Contains(string(files["talops.yaml"]), "\nproxmox:") {
		testlab.Edit(t, files, "talops.yaml", "\nnodes:\n", "\nproxmox:\n  url: https://pve.lab:8006/api2/json\n  storage: local\n  caFile: pve-ca.pem\nnodes:\n")
		files["pve-ca.pem"] = []byte("the lab's CA\n")
	}

	return files
}

// The red team's reproductions: each of these changes kept the hash of an unchanged plan,
// which said "no changes".
func TestPlan_ASettingApplyActsOnChangesTheHashAndIsShown(t *testing.T) {
	for _, tc := range []struct {
		name       string
		edit       func(t *testing.T, files cluster.MapFiles)
		node, want string
	}{
		{"vmid", func(t *testing.T, f cluster.MapFiles) {
			testlab.Edit(t, f, "talops.yaml", "vmid: 204", "vmid: 999")
		}, "k8s-node4", "proxmox.vmid 204 → 999"},
		{"proxmox node", func(t *testing.T, f cluster.MapFiles) {
			testlab.Edit(t, f, "talops.yaml", "{node: pve, vmid: 204}", "{node: pve2, vmid: 204}")
		}, "k8s-node4", "proxmox.node pve → pve2"},
		{"hostpci", func(t *testing.T, f cluster.MapFiles) {
			testlab.Edit(t, f, "talops.yaml", "{node: pve, vmid: 204}", "{node: pve, vmid: 204, hostpci: [\"0000:01:00\"], cores: 8, memory: 8192}")
		}, "k8s-node4", "proxmox.hostpci[0] set to 0000:01:00"},
		{"address", func(t *testing.T, f cluster.MapFiles) {
			testlab.Edit(t, f, "talops.yaml", "address: 10.0.20.104", "address: 10.0.20.199")
		}, "k8s-node4", "address 10.0.20.104 → 10.0.20.199"},
		{"proxmox url", func(t *testing.T, f cluster.MapFiles) {
			testlab.Edit(t, f, "talops.yaml", "url: https://pve.lab:8006/api2/json", "url: https://evil.example:8006/api2/json")
		}, "", "proxmox.url https://pve.lab:8006/api2/json → https://evil.example:8006/api2/json"},
		{"proxmox storage", func(t *testing.T, f cluster.MapFiles) {
			testlab.Edit(t, f, "talops.yaml", "  storage: local\n", "  storage: other\n")
		}, "", "proxmox.storage local → other"},
		{"the proxmox CA's content", func(t *testing.T, f cluster.MapFiles) {
			f["pve-ca.pem"] = []byte("another CA\n")
		}, "", "proxmox.caFile pve-ca.pem (sha256 "},
		{"a VM's size", func(t *testing.T, f cluster.MapFiles) {
			testlab.Edit(t, f, "talops.yaml", "{node: pve, vmid: 204}", "{node: pve, vmid: 204, cores: 8, memory: 8192, disk: {size: 64}}")
		}, "k8s-node4", "proxmox.cores set to 8"},
		{"image factory", func(t *testing.T, f cluster.MapFiles) {
			testlab.Edit(t, f, "talops.yaml", "\nnodes:\n", "\nimageFactory: https://factory.example\nnodes:\n")
		}, "", "imageFactory https://factory.talos.dev → https://factory.example"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := withProxmox(t)
			same := compute(t, base, withProxmox(t))

			head := withProxmox(t)
			tc.edit(t, head)
			p := compute(t, base, head)

			if p.Hash == same.Hash {
				t.Error("the hash is the one of the unchanged plan")
			}

			if !p.HasChanges() || strings.Contains(p.Summary(), "no changes") {
				t.Errorf("summary %q says nothing changes", p.Summary())
			}

			var shown []string

			if tc.node == "" {
				for _, s := range p.Settings {
					shown = append(shown, s.String())
				}
			} else {
				for _, n := range p.Nodes {
					if n.Name == tc.node {
						shown = n.Reasons
					}
				}
			}

			if !containsPrefix(shown, tc.want) {
				t.Errorf("shown %q, want a line starting %q", shown, tc.want)
			}
		})
	}
}

func containsPrefix(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}

	return false
}

func TestPlan_UnchangedSettingsSayNoChanges(t *testing.T) {
	p := compute(t, withProxmox(t), withProxmox(t))

	if got := p.Summary(); !strings.HasSuffix(got, "— no changes") {
		t.Errorf("summary %q", got)
	}

	if len(p.Settings) != 0 {
		t.Errorf("settings %v", p.Settings)
	}
}

func TestPlan_ANewNodeShowsItsVM(t *testing.T) {
	head := withProxmox(t)
	testlab.Edit(t, head, "talops.yaml", "{node: pve, vmid: 204}", "{node: pve, vmid: 204, hostpci: [\"0000:01:00\"]}")

	base := withProxmox(t)
	testlab.Edit(t, base, "talops.yaml", "  - name: k8s-node4\n", "  - name: k8s-node9\n")

	p := compute(t, base, head)

	for _, n := range p.Nodes {
		if n.Name == "k8s-node4" && (n.Action != plan.Create || !containsPrefix(n.Reasons, "proxmox.hostpci[0] set to 0000:01:00")) {
			t.Errorf("k8s-node4: %s %q", n.Action, n.Reasons)
		}
	}
}

func TestPlan_SettingsUnknownInTheCurrentStateAreNotChanges(t *testing.T) {
	cur, b := state(t, withProxmox(t))
	des, _ := state(t, withProxmox(t))

	cur.Settings = nil
	for i := range cur.Nodes {
		cur.Nodes[i].Settings = nil
	}

	p, err := plan.Compute(context.Background(), "homelab", cur, des, mask.New(b.Values()...))
	if err != nil {
		t.Fatal(err)
	}

	if p.HasChanges() {
		t.Errorf("a state read from the nodes moves settings: %s", p.Summary())
	}
}
