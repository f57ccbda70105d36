package talostest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cosi-project/runtime/pkg/safe"
	"github.com/cosi-project/runtime/pkg/state"
	"github.com/siderolabs/talos/pkg/machinery/api/common"
	"github.com/siderolabs/talos/pkg/machinery/api/machine"
	configbase "github.com/siderolabs/talos/pkg/machinery/config"
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
	// controlPlane is true when the node's config makes it one: it runs etcd. It changes
	// when a node in maintenance mode is configured, or a configured one is reset.
	controlPlane atomic.Bool
	// maintenance is true while the node waits for its first config.
	maintenance atomic.Bool

	// applyMu is machined's applyConfigMu: one apply at a time.
	applyMu sync.Mutex

	// failMu guards failNext: fails is called with mu held and without.
	failMu sync.Mutex

	mu      sync.Mutex
	applied []Applied
	dryRuns int
	reboots int
	boots   int
	bootID  string
	// active is the running config, current the same loaded; persisted is the config
	// the node boots with (a staged one, or the active one).
	active, persisted []byte
	current           configbase.Provider
	// applyRebooted is set when an apply made a Talos ≤ 1.13 node reboot.
	applyRebooted bool
	// rollback reverts a config applied in try mode.
	rollback *time.Timer
	// host serves the API; a reboot stops and starts it.
	host *host
	// rebooting is set from a reboot's start until the node runs again.
	rebooting bool
	// wg waits for a reboot under way, done ends it when the test ends.
	wg   sync.WaitGroup
	done chan struct{}
	// version and schematic are what the node runs now.
	version, schematic string
	// installed is the image an upgrade wrote to disk, booted on the next reboot.
	installed *schematic.InstallerRef
	// previous is the image the node ran before its last upgrade booted: what a rollback
	// boots (nil before any upgrade).
	previous *schematic.InstallerRef
	upgrades []Upgrade
	pulls    []string
	// pulledInto is every pull as "DRIVER NAMESPACE image": which containerd it went to.
	pulledInto []string
	// bootstraps counts Bootstrap calls; etcdData is set once one started etcd here.
	bootstraps int
	etcdData   bool
	resets     []Reset
	// uploaded is the snapshot EtcdRecover took, recovered the one a recovering
	// bootstrap started etcd from.
	uploaded, recovered []byte
	// failNext are calls that fail once more (FailNext).
	failNext []string
}

func machineConfig(data []byte) (*config.MachineConfig, error) {
	provider, err := configloader.NewFromBytes(data)
	if err != nil {
		return nil, err
	}

	return config.NewMachineConfig(provider), nil
}

func (m *machineService) fails(call string) error {
	if slices.Contains(m.node.Fail, call) || m.failOnce(call) {
		return status.Errorf(codes.Internal, "%s failed on %s", call, m.node.Name)
	}

	return nil
}

func (m *machineService) failOnce(call string) bool {
	m.failMu.Lock()
	defer m.failMu.Unlock()

	i := slices.Index(m.failNext, call)
	if i < 0 {
		return false
	}

	m.failNext = slices.Delete(m.failNext, i, i+1)

	return true
}

// FailNext makes the node's next call named call fail (the names of Node.Fail), as a run
// that stops part-way there.
func (s *Server) FailNext(call string) {
	s.m.failMu.Lock()
	defer s.m.failMu.Unlock()

	s.m.failNext = append(s.m.failNext, call)
}

func (m *machineService) Version(context.Context, *emptypb.Empty) (*machine.VersionResponse, error) {
	return &machine.VersionResponse{Messages: []*machine.Version{{
		Version:  &machine.VersionInfo{Tag: m.currentVersion(), Arch: "amd64"},
		Platform: &machine.PlatformInfo{Name: m.node.platformName(), Mode: m.node.platformMode()},
	}}}, nil
}

func (m *machineService) currentVersion() string {
	m.mu.Lock()
	defer m.mu.Unlock()

	return m.version
}

// activate makes data, which loaded before, the running config; m.mu is held.
func (m *machineService) activate(ctx context.Context, data []byte) error {
	mc, err := machineConfig(data)
	if err != nil {
		return err
	}

	cur, err := safe.StateGetByID[*config.MachineConfig](ctx, m.state, config.ActiveID)
	if err != nil {
		return err
	}

	mc.Metadata().SetVersion(cur.Metadata().Version())

	if err := m.state.Update(ctx, mc); err != nil {
		return err
	}

	if err := syncStaticPods(ctx, m.state, m.node.Name, mc.Provider()); err != nil {
		return err
	}

	if err := m.publishNames(ctx, mc.Provider()); err != nil {
		return err
	}

	m.active, m.current = data, mc.Provider()

	return nil
}

// Reboot answers at once and reboots the node a moment later, as machined runs its
// reboot sequence in the background.
func (m *machineService) Reboot(context.Context, *machine.RebootRequest) (*machine.RebootResponse, error) {
	if err := m.fails("Reboot"); err != nil {
		return nil, err
	}

	if err := m.supported(); err != nil {
		return nil, err
	}

	m.mu.Lock()
	defer m.mu.Unlock()

	m.reboots++
	m.node.Journal.add("%s Reboot", m.node.Name)
	m.reboot()

	return &machine.RebootResponse{Messages: []*machine.Reboot{{ActorId: fmt.Sprintf("reboot-%d", m.reboots)}}}, nil
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

// supported refuses what container mode cannot do (reboot, upgrade), as checkSupported of
// machined's server and of the lifecycle service (v1.14.1) do.
func (m *machineService) supported() error {
	if mode := m.node.platformMode(); mode == "container" {
		return status.Errorf(codes.FailedPrecondition, "method is not supported in %s mode", mode)
	}

	return nil
}
