package app_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/proxmox"
	"github.com/talops/talops/internal/proxmox/proxmoxtest"
	"github.com/talops/talops/internal/testlab"
)

// TestVMFindings_DriftAndMissingVMsAreWarningsAtTheNodesLine: with the token in the
// environment, plan --live says which VM drifted from its spec (one finding per field) and
// which is missing, at the node's proxmox: line; without the token it asks Proxmox nothing.
func TestVMFindings_DriftAndMissingVMsAreWarningsAtTheNodesLine(t *testing.T) {
	t.Parallel()

	tok := proxmoxtest.Token{ID: "talops@pve!ci", Secret: "drift-token-secret"}
	srv := proxmoxtest.New(t, tok)

	for vmid, name := range map[int]string{200: "k8s-master", 201: "k8s-node1", 202: "k8s-node2", 203: "k8s-node3"} {
		srv.AddVM("pve", vmid, name, "running")
	}

	srv.SetVMConfig("pve", 201, map[string]string{"cores": "4"})

	files := testlab.Files(t)
	testlab.Edit(t, files, "talops.yaml", "nodes:\n", "proxmox:\n  url: "+srv.URL()+"\n  storage: local\n  caFile: pve-ca.pem\nnodes:\n")
	testlab.Edit(t, files, "talops.yaml", "{node: pve, vmid: 201}", "{node: pve, vmid: 201, cores: 8, hostpci: [\"0000:01:00\"]}")
	files["pve-ca.pem"] = srv.CAPEM()

	c := testlab.Load(t, files)

	env := map[string]string{app.EnvProxmoxTokenID: tok.ID, app.EnvProxmoxTokenSecret: tok.Secret, app.EnvProxmoxURL: srv.URL()}
	d := deps(t, env)
	d.OpenDir = func(string) (cluster.Files, func() error, error) { return files, func() error { return nil }, nil }
	d.Proxmox = func(cfg proxmox.Config) (proxmox.API, error) {
		cfg.PollInterval = time.Millisecond

		return proxmox.New(cfg)
	}

	got := app.VMFindings(context.Background(), d, "lab", c)

	var lines []string
	for _, f := range got {
		lines = append(lines, f.Code+" "+f.Node+" "+f.Path+": "+f.Message)

		if f.Severity != finding.Warning || f.File != "examples/homelab/talops.yaml" && !strings.HasSuffix(f.File, "talops.yaml") || f.Line == 0 {
			t.Errorf("%+v: want a warning on a line of talops.yaml", f)
		}
	}

	want := []string{
		"proxmox.vm-drift k8s-node1 nodes[1].proxmox.cores: VM 201: cores: 8 wanted, the VM has 4",
		"proxmox.vm-drift k8s-node1 nodes[1].proxmox.hostpci0: VM 201: hostpci0: 0000:01:00 wanted, the VM has none",
		"proxmox.vm-missing k8s-node4 nodes[4].proxmox: VM 204 is not on Proxmox node pve: proxmox vms --create or apply --proxmox-vms creates it",
	}

	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}

	before := len(srv.Requests())
	if got := app.VMFindings(context.Background(), deps(t, nil), "lab", c); len(got) > 0 || len(srv.Requests()) != before {
		t.Errorf("without a token: %d findings, %d requests", len(got), len(srv.Requests())-before)
	}
}
