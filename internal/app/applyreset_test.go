package app_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/proxmox"
	"github.com/talops/talops/internal/proxmox/proxmoxtest"
	"github.com/talops/talops/internal/testlab"
)

// TestVMResetter_ResetsARunningVMStartsAStoppedOneAndLeavesASuspendedOne: the node that
// did not come back is found by its placement; its VM is reset when it runs (hung), started
// when stopped, and never resumed when paused.
func TestVMResetter_ResetsARunningVMStartsAStoppedOneAndLeavesASuspendedOne(t *testing.T) {
	t.Parallel()

	tok := proxmoxtest.Token{ID: "talops@pve!ci", Secret: "reset-token-secret"}
	srv := proxmoxtest.New(t, tok)
	srv.AddVM("pve", 201, "k8s-node1", "running")
	srv.AddVM("pve", 202, "k8s-node2", "stopped")
	srv.AddVM("pve", 203, "k8s-node3", proxmoxtest.Paused)

	files := testlab.Files(t)
	testlab.Edit(t, files, "talops.yaml", "nodes:\n", "proxmox:\n  url: "+srv.URL()+"\n  storage: local\n  caFile: pve-ca.pem\nnodes:\n")
	files["pve-ca.pem"] = srv.CAPEM()

	var notes []string

	d := deps(t, map[string]string{app.EnvProxmoxTokenID: tok.ID, app.EnvProxmoxTokenSecret: tok.Secret, app.EnvProxmoxURL: srv.URL()})
	d.OpenDir = func(string) (cluster.Files, func() error, error) { return files, func() error { return nil }, nil }
	d.Note = func(text string) { notes = append(notes, text) }
	d.Proxmox = func(cfg proxmox.Config) (proxmox.API, error) {
		cfg.PollInterval = time.Millisecond

		return proxmox.New(cfg)
	}

	reset, err := app.VMResetter(d, app.ApplyOptions{Dir: "lab", ProxmoxReset: true})
	if err != nil || reset == nil {
		t.Fatalf("resetter %v, %v", reset != nil, err)
	}

	ctx := context.Background()

	if err := reset(ctx, "k8s-node1"); err != nil {
		t.Errorf("reset of a running VM: %v", err)
	}

	if err := reset(ctx, "k8s-node2"); err != nil || srv.VMStatus("pve", 202) != "running" {
		t.Errorf("a stopped VM: %v, now %s", err, srv.VMStatus("pve", 202))
	}

	if err := reset(ctx, "k8s-node3"); err == nil || !strings.Contains(err.Error(), "is paused: talops neither resets nor resumes it") || srv.VMStatus("pve", 203) != proxmoxtest.Paused {
		t.Errorf("a paused VM: %v, now %s", err, srv.VMStatus("pve", 203))
	}

	var posts []string

	for _, r := range srv.Requests() {
		if r.Method == http.MethodPost {
			posts = append(posts, r.Path)
		}
	}

	want := []string{"/api2/json/nodes/pve/qemu/201/status/reset", "/api2/json/nodes/pve/qemu/202/status/start"}
	if !slices.Equal(posts, want) {
		t.Errorf("Proxmox was asked %q, want %q", posts, want)
	}

	if len(notes) != 2 || !strings.Contains(notes[0], "resetting VM 201 of k8s-node1 on pve") {
		t.Errorf("notes %q", notes)
	}

	if off, err := app.VMResetter(d, app.ApplyOptions{Dir: "lab", ProxmoxReset: true, DryRun: true}); off != nil || err != nil {
		t.Error("a dry run resets nothing")
	}
}

// TestVMResetter_WithoutProxmoxIsARefusalBeforeAnyNode: --proxmox-reset on a repository
// without a proxmox: section refuses the apply instead of failing a node later.
func TestVMResetter_WithoutProxmoxIsARefusalBeforeAnyNode(t *testing.T) {
	t.Parallel()

	_, err := app.VMResetter(deps(t, nil), app.ApplyOptions{Dir: "lab", ProxmoxReset: true})

	var refused *app.RefusedError
	if !errors.As(err, &refused) {
		t.Fatalf("error %v, want a refusal", err)
	}
}
