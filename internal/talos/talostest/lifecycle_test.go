package talostest_test

import (
	"context"
	"crypto/tls"
	"testing"

	"github.com/siderolabs/talos/pkg/machinery/api/machine"
	"github.com/siderolabs/talos/pkg/machinery/client"
	"github.com/siderolabs/talos/pkg/machinery/role"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/talops/talops/internal/talos/talostest"
)

// insecure dials addr as talosctl --insecure does: TLS without verification, no client
// certificate.
func insecure(t *testing.T, addr string) *client.Client {
	t.Helper()

	//nolint:gosec // a node in maintenance mode has a self-signed certificate
	c, err := client.New(context.Background(), client.WithEndpoints(addr), client.WithTLSConfig(&tls.Config{InsecureSkipVerify: true}))
	if err != nil {
		t.Fatal(err)
	}

	t.Cleanup(func() { c.Close() }) //nolint:errcheck // the test is done with it

	return c
}

// In maintenance mode every client is os:reader: it may read the version and send the
// first config, nothing that needs os:admin, and etcd says the machine has no type yet.
func TestMaintenance_EveryClientIsAReaderWithoutAMachineType(t *testing.T) {
	s := talostest.Start(t, talostest.NewCA(t), talostest.Node{Name: "new", Version: "v1.14.1"})
	c := insecure(t, s.Addr)
	ctx := context.Background()

	if _, err := c.Version(ctx); err != nil {
		t.Errorf("Version: %v", err)
	}

	for name, call := range map[string]func() error{
		"Bootstrap": func() error { return c.Bootstrap(ctx, &machine.BootstrapRequest{}) },
		"Reset":     func() error { return c.Reset(ctx, true, true) },
		"Reboot":    func() error { return c.Reboot(ctx) },
	} {
		if err := call(); status.Code(err) != codes.PermissionDenied {
			t.Errorf("%s in maintenance mode: %v, want PermissionDenied", name, err)
		}
	}

	_, err := c.EtcdMemberList(ctx, &machine.EtcdMemberListRequest{})
	if status.Code(err) != codes.Unimplemented || status.Convert(err).Message() != "machine type is not set, cannot use member list API" {
		t.Errorf("EtcdMemberList in maintenance mode: %v", err)
	}
}

func TestBootstrap_AWorkerSaysItIsNoControlPlane(t *testing.T) {
	s, c := started(t, talostest.Node{Version: "v1.14.1"}, role.Admin)

	err := c.Bootstrap(context.Background(), &machine.BootstrapRequest{})
	if status.Code(err) != codes.Unimplemented || status.Convert(err).Message() != "bootstrap is only available on control plane nodes" || s.Bootstraps() != 0 {
		t.Errorf("Bootstrap of a worker: %v", err)
	}
}

func TestReset_NeedsAdminAndRefusesWipesItsModeExcludes(t *testing.T) {
	ctx := context.Background()

	_, reader := started(t, talostest.Node{Version: "v1.14.1"}, role.Reader)
	if err := reader.Reset(ctx, true, true); status.Code(err) != codes.PermissionDenied {
		t.Errorf("os:reader Reset: %v, want PermissionDenied", err)
	}

	s, admin := started(t, talostest.Node{Version: "v1.14.1"})

	err := admin.ResetGeneric(ctx, &machine.ResetRequest{
		Mode:                   machine.ResetRequest_USER_DISKS,
		SystemPartitionsToWipe: []*machine.ResetPartitionSpec{{Label: "STATE", Wipe: true}},
	})
	if err == nil || status.Convert(err).Message() != "reset failed: invalid input, wipe mode USER_DISKS doesn't support SystemPartitionsToWipe parameter" {
		t.Errorf("USER_DISKS with system partitions: %v", err)
	}

	if len(s.Resets()) != 0 {
		t.Errorf("refused resets were recorded: %+v", s.Resets())
	}
}
