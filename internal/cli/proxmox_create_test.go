package cli_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/proxmox/proxmoxtest"
	"github.com/talops/talops/internal/testlab"
)

// describedLab is the Proxmox lab with k8s-node4's VM described: a GPU worker on pve2.
func describedLab(t *testing.T, srv *proxmoxtest.Server) (files map[string][]byte, base, gpu string) {
	t.Helper()

	lab := proxmoxLab(t, srv)
	testlab.Edit(t, lab, "talops.yaml", "{node: pve2, vmid: 204}",
		"{node: pve2, vmid: 204, cores: 8, memory: 16384, bios: ovmf, disk: {size: 64, storage: nvme}, vlan: 20, mac: \"BC:24:11:00:02:04\", hostpci: [\"0000:01:00\"], tags: [talos, gpu]}")

	base, gpu = labISOs(t, lab)

	return lab, base, gpu
}

func TestProxmoxVMs_CreateCreatesTheMissingVMFromItsSpecBootingItsISO(t *testing.T) {
	t.Parallel()

	srv := proxmoxtest.New(t, pveToken)
	files, base, _ := describedLab(t, srv)

	for vmid, name := range map[int]string{200: "k8s-master", 201: "k8s-node1", 202: "k8s-node2", 203: "k8s-node3"} {
		srv.AddVM("pve", vmid, name, "running")
	}

	srv.AddStorage("pve2", "local", "iso,vztmpl", base)

	h := proxmoxHarness(t, files, pveToken)
	if err := h.run("proxmox", "vms", "--dir", "examples/homelab", "--create"); err != nil {
		t.Fatalf("%v\n%s%s", err, h.stdout.String(), h.stderr.String())
	}

	golden(t, "proxmox-vms-create.txt", h.stdout.String())

	created := srv.Created()
	if len(created) != 1 || created[0].Node != "pve2" {
		t.Fatalf("created %+v, want k8s-node4's VM on pve2", created)
	}

	p := created[0].Params
	for k, want := range map[string]string{
		"vmid": "204", "name": "k8s-node4", "cores": "8", "memory": "16384", "bios": "ovmf", "scsi0": "nvme:64,discard=on,iothread=1",
		"ide2": "local:iso/" + base + ",media=cdrom", "boot": "order=scsi0;ide2", "agent": "enabled=1",
		"net0": "virtio=BC:24:11:00:02:04,bridge=vmbr0,tag=20", "hostpci0": "0000:01:00,pcie=1", "tags": "talos;gpu",
	} {
		if p[k] != want {
			t.Errorf("create parameter %s = %q, want %q", k, p[k], want)
		}
	}

	if got := srv.VMStatus("pve2", 204); got != "running" {
		t.Errorf("the new VM is %q, want running (booting its ISO)", got)
	}

	if u := srv.Unfinished(); len(u) > 0 {
		t.Errorf("tasks not awaited: %v", u)
	}
}

func TestProxmoxVMs_CreateRefusesAVMWhoseISOIsNotInStorage(t *testing.T) {
	t.Parallel()

	srv := proxmoxtest.New(t, pveToken)
	files, base, _ := describedLab(t, srv)

	for vmid, name := range map[int]string{200: "k8s-master", 201: "k8s-node1", 202: "k8s-node2", 203: "k8s-node3"} {
		srv.AddVM("pve", vmid, name, "running")
	}

	srv.AddStorage("pve2", "local", "iso,vztmpl")

	h := proxmoxHarness(t, files, pveToken)

	err := h.run("proxmox", "vms", "--dir", "examples/homelab", "--create")
	if cli.ExitCode(err) != 1 {
		t.Fatalf("exit code %d (%v), want 1", cli.ExitCode(err), err)
	}

	want := "k8s-node4: pve2/204 failed: not created: its boot image " + base + " is not in storage local on pve2: run talops proxmox images first"
	if !strings.Contains(h.stdout.String(), want) {
		t.Errorf("stdout lacks %q:\n%s", want, h.stdout.String())
	}

	if len(srv.Created()) > 0 {
		t.Error("a VM was created without its ISO")
	}
}

func TestProxmoxVMs_DriftOfAnExistingVMIsReportedNeverChanged(t *testing.T) {
	t.Parallel()

	srv := proxmoxtest.New(t, pveToken)
	files, _, _ := describedLab(t, srv)

	for vmid, name := range map[int]string{200: "k8s-master", 201: "k8s-node1", 202: "k8s-node2", 203: "k8s-node3"} {
		srv.AddVM("pve", vmid, name, "running")
	}

	srv.AddVM("pve2", 204, "k8s-node4", "running")
	srv.SetVMConfig("pve2", 204, map[string]string{"cores": "4", "memory": "16384", "bios": "ovmf", "tags": "talos;gpu",
		"net0": "virtio=BC:24:11:00:02:04,bridge=vmbr0,tag=20", "hostpci0": ""})

	h := proxmoxHarness(t, files, pveToken)
	if err := h.run("proxmox", "vms", "--dir", "examples/homelab", "--create"); err != nil {
		t.Fatalf("%v\n%s", err, h.stdout.String())
	}

	for _, want := range []string{
		"Proxmox VMs: homelab — 5 running, 1 with drift",
		"    differs from its spec: cores: 8 wanted, the VM has 4\n",
		"    differs from its spec: hostpci0: 0000:01:00 wanted, the VM has none\n",
	} {
		if !strings.Contains(h.stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, h.stdout.String())
		}
	}

	for _, r := range srv.Requests() {
		if r.Method != http.MethodGet {
			t.Errorf("an existing VM was changed: %s %s", r.Method, r.Path)
		}
	}
}

func TestProxmoxImages_PruneDeletesOnlyTalopsISOsNoNodeNeeds(t *testing.T) {
	t.Parallel()

	srv := proxmoxtest.New(t, pveToken)
	files := proxmoxLab(t, srv)
	base, gpu := labISOs(t, files)
	old := strings.Replace(base, testlab.Talos, "v1.14.6", 1)

	srv.AddStorage("pve", "local", "iso", base, gpu, old, "debian-12.iso", "talos-custom.iso")
	srv.AddStorage("pve2", "local", "iso", base)

	h := proxmoxHarness(t, files, pveToken)
	if err := h.run("proxmox", "images", "--dir", "examples/homelab", "--prune", "--dry-run"); err != nil {
		t.Fatalf("%v\n%s", err, h.stdout.String())
	}

	if !strings.Contains(h.stdout.String(), "  pve: "+old+" prunable (no node boots from it)\n    --prune without --dry-run deletes it\n") || len(srv.Deleted()) > 0 {
		t.Errorf("dry run: deleted %q, stdout:\n%s", srv.Deleted(), h.stdout.String())
	}

	h = proxmoxHarness(t, files, pveToken)
	if err := h.run("proxmox", "images", "--dir", "examples/homelab", "--prune"); err != nil {
		t.Fatalf("%v\n%s", err, h.stdout.String())
	}

	if got := srv.Deleted(); !slices.Equal(got, []string{"local:iso/" + old}) {
		t.Errorf("deleted %q, want only %s", got, old)
	}

	if got := srv.ISOs("pve", "local"); !slices.Equal(got, slices.Sorted(slices.Values([]string{base, gpu, "debian-12.iso", "talos-custom.iso"}))) {
		t.Errorf("pve's storage holds %q", got)
	}

	if !strings.Contains(h.stdout.String(), "3 present, 1 pruned") {
		t.Errorf("summary:\n%s", h.stdout.String())
	}
}
