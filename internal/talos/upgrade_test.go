package talos_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/talops/talops/internal/talos"
	"github.com/talops/talops/internal/talos/talostest"
)

const (
	oldSchematic = "376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba"
	newSchematic = "613e1592b2da41ae5e265e8789429f22e121aab91cb4deb6bc3c0b6262961245"
	newInstaller = "factory.talos.dev/nocloud-installer/" + newSchematic + ":v1.14.1"

	controlPlaneConfig = `version: v1alpha1
machine:
  type: controlplane
  token: fake-machine-token
  ca:
    crt: ZmFrZQ==
cluster:
  clusterName: fake
`
)

func TestUpgrade_LifecycleInstallsTheImageAndTheNodeRunsItAfterTheReboot(t *testing.T) {
	ctx := context.Background()
	node, s := dialOne(t, talostest.Node{Name: "a", Config: []byte(workerConfig), Version: "v1.13.9", SchematicID: oldSchematic})

	if err := node.PullImage(ctx, newInstaller); err != nil {
		t.Fatal(err)
	}

	if err := node.Upgrade(ctx, newInstaller); err != nil {
		t.Fatal(err)
	}

	// Installed, not booted: the node still runs what it ran.
	if v, _ := node.Version(ctx); v != "v1.13.9" {
		t.Errorf("before the reboot: %s", v)
	}

	boot, _ := node.BootID(ctx)

	if err := node.Reboot(ctx); err != nil {
		t.Fatal(err)
	}

	s.WaitRunning(t)

	v, _ := node.Version(ctx)
	id, _ := node.SchematicID(ctx)
	after, _ := node.BootID(ctx)

	if v != "v1.14.1" || id != newSchematic || after == boot {
		t.Errorf("after the reboot: %s %s, boot %s → %s", v, id, boot, after)
	}

	if got := s.Upgrades(); len(got) != 1 || got[0].API != "lifecycle" || got[0].Image != newInstaller || !slices.Equal(s.Pulls(), []string{newInstaller}) {
		t.Errorf("upgrades %+v, pulls %q", got, s.Pulls())
	}
}

func TestUpgrade_ANonZeroExitCodeIsAnError(t *testing.T) {
	node, _ := dialOne(t, talostest.Node{Name: "a", Config: []byte(workerConfig), Version: "v1.13.9", Fail: []string{"LifecycleUpgrade"}})

	err := node.Upgrade(context.Background(), newInstaller)
	if err == nil || !strings.HasPrefix(err.Error(), "the installer exited with code 1: installing ") {
		t.Errorf("err: %v", err)
	}
}

func TestUpgrade_NodesBefore113OnlyServeTheLegacyCallWhichRebootsByItself(t *testing.T) {
	ctx := context.Background()
	node, s := dialOne(t, talostest.Node{Name: "a", Config: []byte(workerConfig), Version: "v1.12.6", SchematicID: oldSchematic})

	if err := node.Upgrade(ctx, newInstaller); status.Code(err) != codes.Unimplemented {
		t.Errorf("lifecycle upgrade on 1.12: %v", err)
	}

	if err := node.PullImage(ctx, newInstaller); status.Code(err) != codes.Unimplemented {
		t.Errorf("pull on 1.12: %v", err)
	}

	if err := node.LegacyUpgrade(ctx, newInstaller); err != nil {
		t.Fatal(err)
	}

	s.WaitRunning(t)

	if v, _ := node.Version(ctx); v != "v1.14.1" || s.Reboots() != 0 || s.Upgrades()[0].API != "legacy" {
		t.Errorf("version %s, reboots %d, upgrades %+v", v, s.Reboots(), s.Upgrades())
	}

	if talos.LifecycleAPI("v1.12.6") || !talos.LifecycleAPI("v1.13.0") || !talos.LifecycleAPI("v1.14.1") || talos.LifecycleAPI("garbage") {
		t.Error("LifecycleAPI draws the line at 1.13")
	}
}

func TestUpgrade_ANodeCanComeBackOnItsOldVersion(t *testing.T) {
	ctx := context.Background()
	node, s := dialOne(t, talostest.Node{Name: "a", Config: []byte(workerConfig), Version: "v1.13.9", SchematicID: oldSchematic, BootsOldVersion: true})

	if err := node.Upgrade(ctx, newInstaller); err != nil {
		t.Fatal(err)
	}

	if err := node.Reboot(ctx); err != nil {
		t.Fatal(err)
	}

	s.WaitRunning(t)

	if v, _ := node.Version(ctx); v != "v1.13.9" {
		t.Errorf("version %s", v)
	}

	if id, _ := node.SchematicID(ctx); id != oldSchematic {
		t.Errorf("schematic %s", id)
	}
}

func TestEtcd_ControlPlanesListMembersAndReportErrorsWorkersHaveNoEtcd(t *testing.T) {
	ctx := context.Background()

	cp, _ := dialOne(t, talostest.Node{Name: "cp1", Config: []byte(controlPlaneConfig), Version: "v1.14.1", EtcdMembers: []string{"cp1", "cp2", "cp3"}})

	members, err := cp.EtcdMembers(ctx)
	if err != nil || len(members) != 3 || members[1].Hostname != "cp2" {
		t.Errorf("members %+v, %v", members, err)
	}

	if errs, err := cp.EtcdErrors(ctx); err != nil || len(errs) != 0 {
		t.Errorf("healthy member: %q %v", errs, err)
	}

	sick, _ := dialOne(t, talostest.Node{Name: "cp1", Config: []byte(controlPlaneConfig), Version: "v1.14.1", EtcdUnhealthy: true})
	if errs, err := sick.EtcdErrors(ctx); err != nil || !slices.Equal(errs, []string{"etcdserver: no leader"}) {
		t.Errorf("unhealthy member: %q %v", errs, err)
	}

	worker, _ := dialOne(t, talostest.Node{Name: "w", Config: []byte(workerConfig), Version: "v1.14.1"})
	if _, err := worker.EtcdMembers(ctx); err == nil {
		t.Error("a worker listed etcd members")
	}
}
