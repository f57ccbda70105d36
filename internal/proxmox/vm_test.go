package proxmox_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/proxmox"
	"github.com/talops/talops/internal/proxmox/proxmoxtest"
)

// TestCreateVM_PostsTheParametersAndWaitsForTheTask: the create call carries every
// parameter, the VM exists (stopped) once the call returns, and its config reads back.
func TestCreateVM_PostsTheParametersAndWaitsForTheTask(t *testing.T) {
	srv := proxmoxtest.New(t, token)
	srv.AddStorage("pve1", "local", "iso", "talos.iso")
	c := client(t, srv, token)

	params := map[string]string{"vmid": "201", "name": "k8s-node1", "cores": "8", "memory": "16384", "machine": "q35", "ide2": "local:iso/talos.iso,media=cdrom"}
	if err := c.CreateVM(context.Background(), "pve1", params); err != nil {
		t.Fatal(err)
	}

	if got := srv.Created(); len(got) != 1 || got[0].Node != "pve1" || got[0].Params["cores"] != "8" || got[0].Params["ide2"] != params["ide2"] {
		t.Errorf("created %+v", got)
	}

	if srv.VMStatus("pve1", 201) != "stopped" || len(srv.Unfinished()) > 0 {
		t.Errorf("VM %q, unfinished tasks %q", srv.VMStatus("pve1", 201), srv.Unfinished())
	}

	cfg, err := c.VMConfig(context.Background(), "pve1", 201)
	if err != nil {
		t.Fatal(err)
	}

	if cfg["cores"] != "8" || cfg["memory"] != "16384" || cfg["machine"] != "pc-q35-9.2+pve1" {
		t.Errorf("config read back: %v", cfg)
	}
}

// TestCreateVM_MissingISOIsProxmoxsError: PVE refuses a CD drive whose ISO volume is not
// in storage, and the error says which.
func TestCreateVM_MissingISOIsProxmoxsError(t *testing.T) {
	srv := proxmoxtest.New(t, token)
	srv.AddStorage("pve1", "local", "iso")
	c := client(t, srv, token)

	err := c.CreateVM(context.Background(), "pve1", map[string]string{"vmid": "201", "ide2": "local:iso/talos.iso,media=cdrom"})

	var api *proxmox.APIError
	if !errors.As(err, &api) || api.StatusCode != 500 || !contains(err.Error(), "volume 'local:iso/talos.iso' does not exist") {
		t.Errorf("error %v, want PVE's 500 naming the volume", err)
	}

	if len(srv.Created()) > 0 {
		t.Error("a VM was created")
	}
}

// TestVMConfig_MissingVMIsAnError: PVE's 500 for a VM without a config file.
func TestVMConfig_MissingVMIsAnError(t *testing.T) {
	srv := proxmoxtest.New(t, token)
	c := client(t, srv, token)

	if _, err := c.VMConfig(context.Background(), "pve1", 999); err == nil || !contains(err.Error(), "999.conf' does not exist") {
		t.Errorf("error %v", err)
	}
}

// TestDeleteISO_DeletesTheVolumeAndWaits: the volume ID with its slash reaches PVE, and
// the file is gone when the call returns.
func TestDeleteISO_DeletesTheVolumeAndWaits(t *testing.T) {
	srv := proxmoxtest.New(t, token)
	srv.AddStorage("pve1", "local", "iso", "old.iso", "keep.iso")
	c := client(t, srv, token)

	if err := c.DeleteISO(context.Background(), "pve1", "local", "old.iso"); err != nil {
		t.Fatal(err)
	}

	if got := srv.ISOs("pve1", "local"); !slices.Equal(got, []string{"keep.iso"}) {
		t.Errorf("storage holds %q", got)
	}

	if got := srv.Deleted(); !slices.Equal(got, []string{"local:iso/old.iso"}) {
		t.Errorf("deleted %q", got)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
