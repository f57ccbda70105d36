package talostest_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/cosi-project/runtime/pkg/resource"
	"github.com/cosi-project/runtime/pkg/safe"
	"github.com/siderolabs/talos/pkg/machinery/api/common"
	"github.com/siderolabs/talos/pkg/machinery/api/machine"
	"github.com/siderolabs/talos/pkg/machinery/client"
	"github.com/siderolabs/talos/pkg/machinery/constants"
	"github.com/siderolabs/talos/pkg/machinery/resources/config"
	"github.com/siderolabs/talos/pkg/machinery/resources/runtime"
	"github.com/siderolabs/talos/pkg/machinery/role"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/talops/talops/internal/talos/talostest"
)

const controlPlaneConfig = `version: v1alpha1
machine:
  type: controlplane
  token: fake-machine-token
  ca:
    crt: ZmFrZQ==
    key: ZmFrZQ==
cluster:
  clusterName: fake
`

// drain reads a server stream to its end.
func drain[T any](recv func() (T, error)) error {
	for {
		if _, err := recv(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}

			return err
		}
	}
}

// calls are the API calls talops makes, each as a node with machined's rules answers it.
var calls = map[string]func(context.Context, *client.Client) error{
	"Version": func(ctx context.Context, c *client.Client) error {
		_, err := c.Version(ctx)

		return err
	},
	"Read": func(ctx context.Context, c *client.Client) error {
		_, err := bootID(ctx, c)

		return err
	},
	"Get MachineConfig": func(ctx context.Context, c *client.Client) error {
		_, err := safe.StateGetByID[*config.MachineConfig](ctx, c.COSI, config.ActiveID)

		return err
	},
	"Get MachineStatus": func(ctx context.Context, c *client.Client) error {
		_, err := safe.StateGetByID[*runtime.MachineStatus](ctx, c.COSI, runtime.MachineStatusID)

		return err
	},
	"List ExtensionStatus": func(ctx context.Context, c *client.Client) error {
		_, err := safe.StateListAll[*runtime.ExtensionStatus](ctx, c.COSI)

		return err
	},
	"ApplyConfiguration": func(ctx context.Context, c *client.Client) error {
		_, err := c.ApplyConfiguration(ctx, &machine.ApplyConfigurationRequest{Data: []byte(controlPlaneConfig), Mode: machine.ApplyConfigurationRequest_NO_REBOOT})

		return err
	},
	"Reboot": func(ctx context.Context, c *client.Client) error { return c.Reboot(ctx) },
	"Upgrade (legacy)": func(ctx context.Context, c *client.Client) error {
		_, err := c.UpgradeWithOptions(ctx, client.WithUpgradeImage("factory.talos.dev/installer/abc:v1.14.1")) //nolint:staticcheck // the legacy call is what is tested

		return err
	},
	"LifecycleService.Upgrade": func(ctx context.Context, c *client.Client) error {
		stream, err := c.LifecycleClient.Upgrade(ctx, &machine.LifecycleServiceUpgradeRequest{Source: &machine.InstallArtifactsSource{ImageName: "factory.talos.dev/installer/abc:v1.14.1"}})
		if err != nil {
			return err
		}

		return drain(stream.Recv)
	},
	"ImageService.Pull": func(ctx context.Context, c *client.Client) error {
		stream, err := c.ImageClient.Pull(ctx, &machine.ImageServicePullRequest{Containerd: &common.ContainerdInstance{Namespace: common.ContainerdNamespace_NS_SYSTEM}, ImageRef: "factory.talos.dev/installer/abc:v1.14.1"})
		if err != nil {
			return err
		}

		return drain(stream.Recv)
	},
	"EtcdMemberList": func(ctx context.Context, c *client.Client) error {
		_, err := c.EtcdMemberList(ctx, &machine.EtcdMemberListRequest{})

		return err
	},
	"EtcdStatus": func(ctx context.Context, c *client.Client) error {
		_, err := c.EtcdStatus(ctx)

		return err
	},
}

func TestRoles_MachinedsTableDecidesEachCall(t *testing.T) {
	// allowed lists the roles each call takes, from machined's rules (v1.14.1) and, for
	// ApplyConfiguration and the sensitive machine config, the handler's own check.
	allowed := map[string][]role.Role{
		"Version":                  {role.Admin, role.Operator, role.Reader},
		"Read":                     {role.Admin},
		"Get MachineConfig":        {role.Admin},
		"Get MachineStatus":        {role.Admin, role.Operator, role.Reader},
		"List ExtensionStatus":     {role.Admin, role.Operator, role.Reader},
		"ApplyConfiguration":       {role.Admin},
		"Reboot":                   {role.Admin, role.Operator},
		"Upgrade (legacy)":         {role.Admin},
		"LifecycleService.Upgrade": {role.Admin},
		"ImageService.Pull":        {role.Admin, role.Operator},
		"EtcdMemberList":           {role.Admin, role.Operator, role.Reader, role.EtcdBackup},
		"EtcdStatus":               {role.Admin, role.Operator, role.Reader, role.EtcdBackup},
	}

	for name, call := range calls {
		for _, r := range []role.Role{role.Admin, role.Operator, role.Reader, role.EtcdBackup, role.Impersonator} {
			t.Run(name+" as "+string(r), func(t *testing.T) {
				t.Parallel()

				_, c := started(t, talostest.Node{Version: "v1.14.1", Config: []byte(controlPlaneConfig)}, r)

				err := call(context.Background(), c)

				want := false
				for _, a := range allowed[name] {
					want = want || a == r
				}

				switch {
				case want && err != nil:
					t.Errorf("refused: %v", err)
				case !want && (status.Code(err) != codes.PermissionDenied || status.Convert(err).Message() != "not authorized"):
					t.Errorf("err %v, want PermissionDenied \"not authorized\"", err)
				}
			})
		}
	}
}

func TestRoles_ACertificateWithNoRoleGetsNothing(t *testing.T) {
	_, c := started(t, talostest.Node{Version: "v1.14.1"}, role.Role("talos"))

	if err := calls["Version"](context.Background(), c); status.Code(err) != codes.PermissionDenied {
		t.Errorf("version: %v", err)
	}
}

func TestRoles_AnImpersonatorActsWithTheRolesItNames(t *testing.T) {
	_, c := started(t, talostest.Node{Version: "v1.14.1"}, role.Impersonator)

	asReader := metadata.AppendToOutgoingContext(context.Background(), constants.APIAuthzRoleMetadataKey, string(role.Reader))

	if err := calls["Version"](asReader, c); err != nil {
		t.Errorf("version as os:reader: %v", err)
	}

	if err := calls["Read"](asReader, c); status.Code(err) != codes.PermissionDenied {
		t.Errorf("read as os:reader: %v", err)
	}

	asAdmin := metadata.AppendToOutgoingContext(context.Background(), constants.APIAuthzRoleMetadataKey, string(role.Admin))
	if err := calls["Read"](asAdmin, c); err != nil {
		t.Errorf("read as os:admin: %v", err)
	}
}

func TestRoles_TheStateIsReadOnlyAndKnowsItsTypes(t *testing.T) {
	ctx := context.Background()
	_, c := started(t, talostest.Node{Version: "v1.14.1"})

	// The COSI client turns this status into an error of its own, with the same text.
	err := c.COSI.Create(ctx, runtime.NewMachineStatus())
	if err == nil || err.Error() != "rpc error: code = PermissionDenied desc = write access is not allowed" {
		t.Errorf("create: %v", err)
	}

	_, err = c.COSI.Get(ctx, resource.NewMetadata("runtime", "Unknowns.talos.dev", "x", resource.VersionUndefined))
	if status.Code(err) != codes.PermissionDenied || status.Convert(err).Message() != `resource type "Unknowns.talos.dev" is not supported` {
		t.Errorf("unknown type: %v", err)
	}

	_, err = c.COSI.Get(ctx, resource.NewMetadata("nowhere", runtime.MachineStatusType, runtime.MachineStatusID, resource.VersionUndefined))
	if status.Code(err) != codes.PermissionDenied || !strings.Contains(status.Convert(err).Message(), `namespace "nowhere" is not supported`) {
		t.Errorf("unknown namespace: %v", err)
	}
}
