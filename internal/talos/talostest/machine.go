package talostest

import (
	"context"
	"slices"
	"sync"

	"github.com/cosi-project/runtime/pkg/safe"
	"github.com/cosi-project/runtime/pkg/state"
	"github.com/siderolabs/talos/pkg/machinery/api/common"
	"github.com/siderolabs/talos/pkg/machinery/api/machine"
	"github.com/siderolabs/talos/pkg/machinery/config/configloader"
	"github.com/siderolabs/talos/pkg/machinery/resources/config"

	"github.com/talops/talops/internal/schematic"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
)

type machineService struct {
	machine.UnimplementedMachineServiceServer

	node  Node
	state state.State
	// controlPlane is true when the node's config makes it one: it runs etcd.
	controlPlane bool

	mu      sync.Mutex
	applied []Applied
	dryRuns int
	reboots int
	boots   int
	bootID  string
	// staged waits for the next reboot.
	staged []byte
	// version and schematic are what the node runs now.
	version, schematic string
	// installed is the image an upgrade wrote to disk, booted on the next reboot.
	installed *schematic.InstallerRef
	upgrades  []Upgrade
	pulls     []string
}

func machineConfig(data []byte) (*config.MachineConfig, error) {
	provider, err := configloader.NewFromBytes(data)
	if err != nil {
		return nil, err
	}

	return config.NewMachineConfig(provider), nil
}

func (m *machineService) fails(call string) error {
	if slices.Contains(m.node.Fail, call) {
		return status.Errorf(codes.Internal, "%s failed on %s", call, m.node.Name)
	}

	return nil
}

func (m *machineService) Version(context.Context, *emptypb.Empty) (*machine.VersionResponse, error) {
	return &machine.VersionResponse{Messages: []*machine.Version{{
		Version:  &machine.VersionInfo{Tag: m.currentVersion(), Arch: "amd64"},
		Platform: &machine.PlatformInfo{Name: "nocloud", Mode: "cloud"},
	}}}, nil
}

func (m *machineService) currentVersion() string {
	m.mu.Lock()
	defer m.mu.Unlock()

	return m.version
}

// ApplyConfiguration behaves as Talos 1.14 does: AUTO never reboots, and the removed
// REBOOT mode (the request's zero value) is refused.
func (m *machineService) ApplyConfiguration(ctx context.Context, req *machine.ApplyConfigurationRequest) (*machine.ApplyConfigurationResponse, error) {
	if err := m.fails("ApplyConfiguration"); err != nil {
		return nil, err
	}

	if req.GetMode() == machine.ApplyConfigurationRequest_REBOOT {
		return nil, status.Error(codes.InvalidArgument, "apply mode REBOOT is not supported")
	}

	mc, err := machineConfig(req.GetData())
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "the config does not load: %v", err)
	}

	chosen := req.GetMode()
	if chosen == machine.ApplyConfigurationRequest_AUTO {
		chosen = machine.ApplyConfigurationRequest_NO_REBOOT
	}

	resp := &machine.ApplyConfigurationResponse{Messages: []*machine.ApplyConfiguration{{Mode: chosen, ModeDetails: "Applied configuration without a reboot"}}}

	m.mu.Lock()
	defer m.mu.Unlock()

	if req.GetDryRun() {
		m.dryRuns++

		return resp, nil
	}

	m.applied = append(m.applied, Applied{Mode: req.GetMode().String(), Config: req.GetData()})
	m.node.Journal.add("%s ApplyConfiguration %s", m.node.Name, req.GetMode())

	if req.GetMode() == machine.ApplyConfigurationRequest_STAGED {
		m.staged = req.GetData()

		return resp, nil
	}

	return resp, m.activate(ctx, mc)
}

// activate makes mc the running config.
func (m *machineService) activate(ctx context.Context, mc *config.MachineConfig) error {
	cur, err := safe.StateGetByID[*config.MachineConfig](ctx, m.state, config.ActiveID)
	if err != nil {
		return err
	}

	mc.Metadata().SetVersion(cur.Metadata().Version())

	return m.state.Update(ctx, mc)
}

func (m *machineService) Reboot(ctx context.Context, _ *machine.RebootRequest) (*machine.RebootResponse, error) {
	if err := m.fails("Reboot"); err != nil {
		return nil, err
	}

	m.mu.Lock()
	defer m.mu.Unlock()

	m.reboots++
	m.node.Journal.add("%s Reboot", m.node.Name)

	if err := m.boot(ctx); err != nil {
		return nil, err
	}

	if m.staged != nil {
		mc, err := machineConfig(m.staged)
		if err != nil {
			return nil, err
		}

		m.staged = nil

		if err := m.activate(ctx, mc); err != nil {
			return nil, err
		}
	}

	return &machine.RebootResponse{Messages: []*machine.Reboot{{}}}, nil
}

// Read serves the kernel's boot ID, the only file talops reads.
func (m *machineService) Read(req *machine.ReadRequest, srv grpc.ServerStreamingServer[common.Data]) error {
	if req.GetPath() != "/proc/sys/kernel/random/boot_id" {
		return status.Errorf(codes.NotFound, "%s: not served by the fake node", req.GetPath())
	}

	m.mu.Lock()
	id := m.bootID
	m.mu.Unlock()

	return srv.Send(&common.Data{Bytes: []byte(id + "\n")})
}
