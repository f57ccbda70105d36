package app_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/images"
	"github.com/talops/talops/internal/kube"
	"github.com/talops/talops/internal/proxmox"
	"github.com/talops/talops/internal/proxmox/proxmoxtest"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/testlab"
)

// provisionLab is a running cluster whose k8s-node4 has a VM spec (vmid 204) but no VM
// yet, the Proxmox that will host it, and the ISO it boots.
func provisionLab(t *testing.T) (*newClusterLab, *proxmoxtest.Server, string) {
	t.Helper()

	l := startNewClusterWithout(t, "k8s-node4")

	tok := proxmoxtest.Token{ID: "talops@pve!ci", Secret: "provision-token-secret"}
	srv := proxmoxtest.New(t, tok)

	for i, name := range clusterNodes[:4] {
		srv.AddVM("pve", 200+i, name, "running")
	}

	ids, err := render.SchematicIDs(testlab.Load(t, l.files))
	if err != nil {
		t.Fatal(err)
	}

	iso := images.ISOName(testlab.Talos, ids["base"], "nocloud-amd64.iso")
	srv.AddStorage("pve", "local", "iso", iso, images.ISOName(testlab.Talos, ids["gpu"], "nocloud-amd64.iso"))
	srv.OnStart(func(_ string, vmid int) {
		if vmid == 204 {
			l.boot("k8s-node4") // the VM boots its ISO: Talos in maintenance mode
		}
	})

	testlab.Edit(t, l.files, "talops.yaml", "nodes:\n", "proxmox:\n  url: "+srv.URL()+"\n  storage: local\n  caFile: pve-ca.pem\nnodes:\n")
	testlab.Edit(t, l.files, "talops.yaml", "{node: pve, vmid: 204}", "{node: pve, vmid: 204, cores: 4, memory: 8192}")
	l.files["pve-ca.pem"] = srv.CAPEM()

	getenv := l.d.Getenv
	l.d.Getenv = func(k string) string {
		switch k {
		case app.EnvProxmoxTokenID:
			return tok.ID
		case app.EnvProxmoxTokenSecret:
			return tok.Secret
		case app.EnvProxmoxURL:
			return srv.URL()
		}

		return getenv(k)
	}
	l.d.Proxmox = func(cfg proxmox.Config) (proxmox.API, error) {
		cfg.PollInterval = time.Millisecond

		return proxmox.New(cfg)
	}

	return l, srv, iso
}

// The hash of the plan reviewed is checked before any VM is created: a merged talops.yaml
// whose plan nobody reviewed creates no VM, with whatever host devices its spec names.
func TestApply_ProxmoxVMsCreatesNothingForAPlanOtherThanTheReviewedOne(t *testing.T) {
	t.Parallel()

	l, srv, _ := provisionLab(t)
	declareApply(l.files, "  proxmoxVMs: true\n  etcdBackup: false\n")

	_, err := l.apply(t, app.ApplyOptions{ProxmoxVMs: true, ProxmoxImages: true, PlanHash: strings.Repeat("0", 64)})

	var refused *app.RefusedError
	if !errors.As(err, &refused) || len(refused.Reasons) != 1 || !strings.HasPrefix(refused.Reasons[0], "the plan differs from the one reviewed: ") {
		t.Fatalf("apply with another plan's hash: %v", err)
	}

	if created := srv.Created(); len(created) != 0 {
		t.Errorf("created %+v before the hash was checked", created)
	}
}

// TestApply_ProxmoxVMsCreatesANewNodesVMAndConfiguresItInOneApply: a node whose VM does
// not exist yet gets it created from its spec, booting its schematic's ISO; the node comes
// up in maintenance mode, and the same apply configures it with the others.
func TestApply_ProxmoxVMsCreatesANewNodesVMAndConfiguresItInOneApply(t *testing.T) {
	t.Parallel()

	l, srv, iso := provisionLab(t)

	rep, err := l.apply(t, app.ApplyOptions{ProxmoxVMs: true})
	if err != nil {
		t.Fatalf("apply --proxmox-vms: %v", err)
	}

	want := []string{
		"k8s-master create applied", "k8s-node2 create applied", "k8s-node3 create applied",
		"k8s-node1 create applied", "k8s-node4 create applied",
	}
	if got := outcomesOf(rep); !slices.Equal(got, want) {
		t.Fatalf("apply\n got %q\nwant %q\n%+v", got, want, rep.Nodes)
	}

	created := srv.Created()
	if len(created) != 1 || created[0].Params["vmid"] != "204" || created[0].Params["ide2"] != "local:iso/"+iso+",media=cdrom" || created[0].Params["cores"] != "4" {
		t.Errorf("created %+v, want VM 204 booting %s", created, iso)
	}

	if len(l.servers["k8s-node4"].Applied()) != 1 {
		t.Errorf("k8s-node4 took %d configs, want 1", len(l.servers["k8s-node4"].Applied()))
	}
}

// runningProvisionLab is provisionLab once its cluster runs without k8s-node4: its control
// planes give their admin kubeconfig, so apply takes the apply lock.
func runningProvisionLab(t *testing.T) (*newClusterLab, *proxmoxtest.Server) {
	t.Helper()

	l, srv, _ := provisionLab(t)

	full := slices.Clone(l.files["talops.yaml"])
	removeNodes(t, l.files, "k8s-node4")

	if _, err := l.apply(t, app.ApplyOptions{}); err != nil {
		t.Fatalf("apply of the cluster without k8s-node4: %v", err)
	}

	l.files["talops.yaml"] = full
	l.kube.nodes = slices.Clone(clusterNodes[:4])

	return l, srv
}

// changes are the requests that change something in Proxmox: all but reads.
func changes(srv *proxmoxtest.Server) []proxmoxtest.Request {
	return slices.DeleteFunc(srv.Requests(), func(r proxmoxtest.Request) bool { return r.Method == "GET" })
}

func TestApply_ProxmoxVMsTakesTheApplyLockBeforeAnyProxmoxChange(t *testing.T) {
	t.Parallel()

	l, srv := runningProvisionLab(t)

	var before []proxmoxtest.Request

	locks := 0
	l.kube.onLock = func() error {
		locks++
		before = changes(srv)

		return nil
	}

	rep, err := l.apply(t, app.ApplyOptions{ProxmoxVMs: true, ProxmoxImages: true})
	if err != nil {
		t.Fatalf("apply --proxmox-vms: %v", err)
	}

	if locks != 1 || len(before) != 0 {
		t.Errorf("lock taken %d times, after the Proxmox changes %+v; want once, before any", locks, before)
	}

	if created := srv.Created(); len(created) != 1 || created[0].Params["vmid"] != "204" {
		t.Errorf("created %+v, want VM 204 once the lock was held", created)
	}

	if got := outcomesOf(rep); got[len(got)-1] != "k8s-node4 create applied" {
		t.Errorf("apply %q, want k8s-node4 created last", got)
	}
}

func TestApply_ProxmoxVMsRefusedTheApplyLockChangesNothingInProxmox(t *testing.T) {
	t.Parallel()

	l, srv := runningProvisionLab(t)
	calls := len(l.journal.Entries())

	l.kube.onLock = func() error {
		return &kube.LockedError{Cluster: "homelab", Holder: "github-actions lab/infra run 42 (bob)", Since: time.Unix(0, 0), Expires: time.Unix(60, 0)}
	}

	_, err := l.apply(t, app.ApplyOptions{ProxmoxVMs: true, ProxmoxImages: true})

	var refused *app.RefusedError
	if !errors.As(err, &refused) || !slices.Contains(refused.Reasons, "another apply of this cluster is running:") {
		t.Fatalf("apply --proxmox-vms under another's lock: %v", err)
	}

	if c := changes(srv); len(c) != 0 || len(srv.Downloads()) != 0 {
		t.Errorf("Proxmox was changed under another apply's lock: %+v, downloads %+v", c, srv.Downloads())
	}

	if got := l.journal.Entries()[calls:]; len(got) != 0 {
		t.Errorf("nodes were called under another apply's lock: %q", got)
	}
}
