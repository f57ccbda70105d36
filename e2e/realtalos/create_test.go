//go:build realtalos

package realtalos

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startMaintenance boots a real node with no config: it waits in maintenance mode.
func startMaintenance(t *testing.T, name, address string) node {
	t.Helper()

	n := node{name: name, address: address}

	t.Cleanup(func() { n.stop(t) })

	script(t, 3*time.Minute, "start.sh", name, n.endpoint())

	return n
}

// importEtcd puts the etcd image into the node once its mTLS API answers, so that the
// etcd talops bootstraps can start (the sandbox pulls nothing).
func importEtcd(ctx context.Context, n node, talosconfig string) error {
	rtclient := filepath.Join(work, "bin", "rtclient")

	for ctx.Err() == nil {
		if exec.CommandContext(ctx, rtclient, "version", "-addr", n.endpoint(), "-talosconfig", talosconfig).Run() == nil {
			return exec.CommandContext(ctx, rtclient, "etcd", "-import-only", "-addr", n.endpoint(), "-talosconfig", talosconfig, "-image", filepath.Join(work, "images", "etcd.tar")).Run()
		}

		time.Sleep(500 * time.Millisecond)
	}

	return ctx.Err()
}

// A node in maintenance mode is planned create with the bootstrap; apply sends it its
// config over the maintenance API, bootstraps etcd on it exactly once, and the node then
// runs its render: plan --live is noop.
func TestCreate_MaintenanceNodeToBootstrappedControlPlane(t *testing.T) {
	t.Parallel()

	l := newLab(t, newAddress())
	n := startMaintenance(t, nodeName(t), l.address)

	action, reasons, _ := l.planLive(t, l.admin)
	if action != "create" || !strings.Contains(strings.Join(reasons, "; "), "bootstrap: etcd is started on cp1") {
		t.Fatalf("a node in maintenance mode plans %s %v, want create with the bootstrap", action, reasons)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	imported := make(chan error, 1)
	go func() { imported <- importEtcd(ctx, n, l.admin) }()

	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")

	rep, code := l.apply(t, "--kubeconfig-out", kubeconfig)
	got := rep.Nodes[0]

	if err := <-imported; err != nil {
		t.Errorf("import the etcd image: %v", err)
	}

	if code != 0 || got.Outcome != "applied" || !strings.HasPrefix(got.Detail, "configured from maintenance mode") || !strings.HasSuffix(got.Detail, "; etcd bootstrapped") {
		t.Fatalf("apply of a new node: exit %d, %+v", code, got)
	}

	if info, err := os.Stat(kubeconfig); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("--kubeconfig-out: %v", err)
	}

	if action, reasons, diff := l.planLive(t, l.admin); action != "noop" {
		t.Errorf("after the create the node plans %s %v\n%s", action, reasons, diff)
	}

	// A second apply changes nothing, and never bootstraps again.
	if rep, code := l.apply(t); code != 0 || rep.Nodes[0].Outcome != "skipped" {
		t.Errorf("a second apply: exit %d, %+v", code, rep.Nodes[0])
	}
}

// A node configured by another cluster is not in maintenance mode: it cannot be read with
// this cluster's CA, and apply refuses before any call: it never gets a config insecurely.
func TestCreate_AConfiguredNodeIsNeverSentAConfigInsecurely(t *testing.T) {
	t.Parallel()

	address := newAddress()
	other := newLab(t, address)
	other.boot(t, false)

	l := newLab(t, address)

	r := l.talops(t, "apply", "--talosconfig", l.admin)
	if r.code == 0 || !strings.Contains(r.stderr, "apply refused, no node was changed") || !strings.Contains(r.stderr, "not readable over the Talos API") {
		t.Errorf("apply to a node of another cluster: exit %d, %s", r.code, r.stderr)
	}

	if action, reasons, _ := other.planLive(t, other.admin); action != "noop" {
		t.Errorf("the other cluster's node plans %s %v: it was changed", action, reasons)
	}
}
