//go:build realkube

package app_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/kube"
	"github.com/talops/talops/internal/proxmox/proxmoxtest"
)

// lockWatch is the real Kubernetes client of an apply, noting what Proxmox had been asked
// to change when the Lease was taken.
type lockWatch struct {
	app.Kube

	srv    *proxmoxtest.Server
	locked int
	before []proxmoxtest.Request
}

func (w *lockWatch) Lock(ctx context.Context, cluster, holder string, lost func(error)) (func(context.Context) error, error) {
	release, err := w.Kube.Lock(ctx, cluster, holder, lost)
	if err == nil {
		w.locked++
		w.before = changes(w.srv)
	}

	return release, err
}

// Against the real kube-apiserver: the Lease is held before the first boot image or VM of
// apply --proxmox-vms, and the VM is created under it.
func TestApplyRealKube_ProxmoxVMsTakesTheLeaseBeforeAnyProxmoxChange(t *testing.T) {
	env := kubeEnv.Env(t)
	l, srv := runningProvisionLab(t)

	w := &lockWatch{srv: srv}
	l.d.Kube = func([]byte) (app.Kube, error) {
		c, err := kube.New(env.Kubeconfig)
		w.Kube = c

		return w, err
	}

	if _, err := l.apply(t, app.ApplyOptions{ProxmoxVMs: true, ProxmoxImages: true}); err != nil {
		t.Fatalf("apply --proxmox-vms: %v", err)
	}

	if w.locked != 1 || len(w.before) != 0 {
		t.Errorf("Lease taken %d times, after the Proxmox changes %+v; want once, before any", w.locked, w.before)
	}

	if created := srv.Created(); len(created) != 1 || created[0].Params["vmid"] != "204" {
		t.Errorf("created %+v, want VM 204 under the Lease", created)
	}
}

// Against the real kube-apiserver: while another apply holds the cluster's Lease (and
// renews it), apply --proxmox-vms is refused and neither downloads nor changes anything in
// Proxmox, nor calls a node.
func TestApplyRealKube_ProxmoxVMsUnderAnotherAppliesLeaseChangesNothing(t *testing.T) {
	env := kubeEnv.Env(t)
	l, srv := runningProvisionLab(t)

	other, err := kube.New(env.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}

	release, err := other.Lock(context.Background(), "homelab", "github-actions lab/infra run 41 (alice)", nil)
	if err != nil {
		t.Fatalf("the other apply's Lease: %v", err)
	}

	t.Cleanup(func() { _ = release(context.Background()) })

	l.d.Kube = func([]byte) (app.Kube, error) { return kube.New(env.Kubeconfig) }
	calls := len(l.journal.Entries())

	_, err = l.apply(t, app.ApplyOptions{ProxmoxVMs: true, ProxmoxImages: true})

	var refused *app.RefusedError
	if !errors.As(err, &refused) || !slices.Contains(refused.Reasons, "another apply of this cluster is running:") {
		t.Fatalf("apply --proxmox-vms under another's Lease: %v", err)
	}

	if c := changes(srv); len(c) != 0 || len(srv.Downloads()) != 0 {
		t.Errorf("Proxmox was changed under another apply's Lease: %+v, downloads %+v", c, srv.Downloads())
	}

	if got := l.journal.Entries()[calls:]; len(got) != 0 {
		t.Errorf("nodes were called under another apply's Lease: %q", got)
	}
}
