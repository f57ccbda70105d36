package talostest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/cosi-project/runtime/pkg/safe"
	"github.com/cosi-project/runtime/pkg/state"
	"github.com/siderolabs/talos/pkg/machinery/api/common"
	"github.com/siderolabs/talos/pkg/machinery/api/machine"
	"github.com/siderolabs/talos/pkg/machinery/resources/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/talops/talops/internal/catalog"
	"github.com/talops/talops/internal/schematic"
)

// schematicExtensionID is the ExtensionStatus resource that carries the schematic ID.
const schematicExtensionID = "1"

// lifecycle reports whether the node's release serves LifecycleService and ImageService.
func lifecycle(tag string) bool {
	c, err := catalog.CompareMinor(tag, "1.13")

	return err == nil && c >= 0
}

// installerRef reads an installer image reference.
func installerRef(image string) (schematic.InstallerRef, error) {
	ref, err := schematic.ParseInstallerImage(image)
	if err != nil || ref.Tag == "" {
		return ref, status.Errorf(codes.InvalidArgument, "%q is not an installer image", image)
	}

	return ref, nil
}

// install puts image on the node's disk: it runs after the next boot.
func (m *machineService) install(image string) error {
	ref, err := installerRef(image)
	if err != nil {
		return err
	}

	m.installed = &ref

	return nil
}

// boot starts the node again, in stage booting: with the persisted config (a try is
// rolled back, a staged config runs) and on the installed image, unless the node is set
// to fall back to the one it ran before; m.mu is held.
func (m *machineService) boot(ctx context.Context) error {
	m.boots++
	m.bootID = bootID(m.node.Name, m.boots)
	m.applyRebooted = false
	m.cancelRollback()

	if err := m.setStage(ctx, runtime.MachineStageBooting); err != nil {
		return err
	}

	if !bytes.Equal(m.active, m.persisted) {
		if err := m.activate(ctx, m.persisted); err != nil {
			return err
		}
	}

	ref := m.installed
	m.installed = nil

	if ref == nil || m.node.BootsOldVersion {
		return nil
	}

	if ref.Tag != m.version || ref.ID != m.schematic {
		m.previous = &schematic.InstallerRef{Tag: m.version, ID: m.schematic}
	}

	m.version, m.schematic = ref.Tag, ref.ID

	return m.setSchematic(ctx)
}

// Rollback is machined's: container mode refuses it, a node with no earlier image fails as
// the bootloader's revert does, and the node reboots into the image it ran before.
func (m *machineService) Rollback(context.Context, *machine.RollbackRequest) (*machine.RollbackResponse, error) {
	if err := m.fails("Rollback"); err != nil {
		return nil, err
	}

	if err := m.supported(); err != nil {
		return nil, err
	}

	m.mu.Lock()
	defer m.mu.Unlock()

	if m.previous == nil {
		return nil, errors.New("cannot rollback: no previous boot entry")
	}

	m.installed, m.previous = m.previous, nil
	m.node.Journal.add("%s Rollback", m.node.Name)
	m.reboot()

	return &machine.RollbackResponse{Messages: []*machine.Rollback{{}}}, nil
}

// setSchematic makes the schematic extension say what the node now runs.
func (m *machineService) setSchematic(ctx context.Context) error {
	ext, err := safe.StateGetByID[*runtime.ExtensionStatus](ctx, m.state, schematicExtensionID)

	switch {
	case state.IsNotFoundError(err) && m.schematic == "":
		return nil
	case state.IsNotFoundError(err):
		ext = runtime.NewExtensionStatus(runtime.NamespaceName, schematicExtensionID)
		ext.TypedSpec().Metadata.Name = "schematic"
		ext.TypedSpec().Metadata.Version = m.schematic

		return m.state.Create(ctx, ext)
	case err != nil:
		return err
	case m.schematic == "":
		return m.state.Destroy(ctx, ext.Metadata())
	default:
		ext.TypedSpec().Metadata.Version = m.schematic

		return m.state.Update(ctx, ext)
	}
}

// Upgrade is the legacy upgrade as machined v1.12.9 and v1.13.9 serve it: the image is
// checked first, then a control plane checks etcd (ValidateForUpgrade) unless the request
// is forced or preserves the node's data (!in.GetForce() && !in.GetPreserve() there), and
// the node installs the image and reboots into it by itself, a moment after it answers.
func (m *machineService) Upgrade(_ context.Context, req *machine.UpgradeRequest) (*machine.UpgradeResponse, error) {
	if err := m.fails("Upgrade"); err != nil {
		return nil, err
	}

	if err := m.supported(); err != nil {
		return nil, err
	}

	m.mu.Lock()
	defer m.mu.Unlock()

	ref, err := installerRef(req.GetImage())
	if err != nil {
		return nil, err
	}

	if m.controlPlane.Load() && !req.GetForce() && !req.GetPreserve() {
		if err := m.validateEtcdForUpgrade(); err != nil {
			// A plain error on the real node: the client sees codes.Unknown.
			return nil, fmt.Errorf("error validating etcd for upgrade: %w", err)
		}
	}

	m.installed = &ref
	m.upgrades = append(m.upgrades, Upgrade{API: "legacy", Image: req.GetImage()})
	m.node.Journal.add("%s Upgrade", m.node.Name)
	m.reboot()

	return &machine.UpgradeResponse{Messages: []*machine.Upgrade{{Ack: "Upgrade request received", ActorId: fmt.Sprintf("upgrade-%d", len(m.upgrades))}}}, nil
}

// validateEtcdForUpgrade is etcd's Client.ValidateForUpgrade (internal/pkg/etcd/etcd.go,
// v1.12.9) over the members the node lists.
func (m *machineService) validateEtcdForUpgrade() error {
	members := m.node.EtcdMembers
	if members == nil {
		members = []string{m.node.Name}
	}

	if len(members) == 2 {
		return fmt.Errorf("etcd member count(%d) is insufficient to maintain quorum if upgrade commences", len(members))
	}

	if m.node.EtcdUnhealthy {
		return fmt.Errorf("etcd member %016x is not healthy; all members must be healthy to perform an upgrade: %s", 1, "etcdserver: no leader")
	}

	return nil
}

// EtcdMemberList lists the etcd members: those of the node's Cluster (any control plane
// asks the cluster's endpoints), or Node.EtcdMembers without one. Before the bootstrap no
// control plane has an endpoint to ask, and the call fails as machined's GetEndpoints does.
func (m *machineService) EtcdMemberList(context.Context, *machine.EtcdMemberListRequest) (*machine.EtcdMemberListResponse, error) {
	if err := m.etcd("EtcdMemberList", "member list"); err != nil {
		return nil, err
	}

	out := &machine.EtcdMembers{}

	if c := m.node.Cluster; c != nil {
		members := c.members()
		if len(members) == 0 {
			return nil, errors.New("no controlplane endpoints discovered yet")
		}

		for _, mem := range members {
			out.Members = append(out.Members, &machine.EtcdMember{
				Id: mem.id, Hostname: mem.name,
				PeerUrls:   []string{"https://" + net.JoinHostPort(mem.address, "2380")},
				ClientUrls: []string{"https://" + net.JoinHostPort(mem.address, "2379")},
			})
			out.LegacyMembers = append(out.LegacyMembers, mem.name)
		}

		return &machine.EtcdMemberListResponse{Messages: []*machine.EtcdMembers{out}}, nil
	}

	members := m.node.EtcdMembers
	if members == nil {
		members = []string{m.node.Name}
	}

	for i, name := range members {
		out.Members = append(out.Members, &machine.EtcdMember{Id: uint64(i + 1), Hostname: name})
	}

	return &machine.EtcdMemberListResponse{Messages: []*machine.EtcdMembers{out}}, nil
}

func (m *machineService) EtcdStatus(context.Context, *emptypb.Empty) (*machine.EtcdStatusResponse, error) {
	if err := m.etcd("EtcdStatus", "etcd status"); err != nil {
		return nil, err
	}

	st := &machine.EtcdMemberStatus{MemberId: 1, Leader: 1}
	if m.node.EtcdUnhealthy {
		st.Errors = []string{"etcdserver: no leader"}
	}

	return &machine.EtcdStatusResponse{Messages: []*machine.EtcdStatus{{MemberStatus: st}}}, nil
}

// etcd refuses etcd calls where Talos does: on workers, as machinehelper.CheckControlplane
// does (internal/app/internal/machinehelper, v1.14.1; api names the API in its message),
// and where the test says they fail.
func (m *machineService) etcd(call, api string) error {
	if m.maintenance.Load() {
		return status.Errorf(codes.Unimplemented, "machine type is not set, cannot use %s API", api)
	}

	if !m.controlPlane.Load() {
		return status.Errorf(codes.Unimplemented, "%s is only available on control plane nodes", api)
	}

	return m.fails(call)
}

type lifecycleService struct {
	machine.UnimplementedLifecycleServiceServer

	m *machineService
}

// Upgrade installs the image and answers with the installer's exit code; the node boots
// it on its next reboot.
func (l *lifecycleService) Upgrade(req *machine.LifecycleServiceUpgradeRequest, srv grpc.ServerStreamingServer[machine.LifecycleServiceUpgradeResponse]) error {
	m := l.m

	m.mu.Lock()
	defer m.mu.Unlock()

	if !lifecycle(m.version) {
		return status.Error(codes.Unimplemented, "unknown service machine.LifecycleService")
	}

	if err := m.supported(); err != nil {
		return err
	}

	image := req.GetSource().GetImageName()
	if image == "" {
		return status.Error(codes.InvalidArgument, "installer image name is required")
	}
	m.node.Journal.add("%s LifecycleUpgrade", m.node.Name)

	if err := srv.Send(progress(&machine.LifecycleServiceInstallProgress{Response: &machine.LifecycleServiceInstallProgress_Message{Message: "installing " + image}})); err != nil {
		return err
	}

	code := int32(0)
	if slices.Contains(m.node.Fail, "LifecycleUpgrade") {
		code = 1
	} else if err := m.install(image); err != nil {
		return err
	}

	m.upgrades = append(m.upgrades, Upgrade{API: "lifecycle", Image: image, ExitCode: int(code)})

	return srv.Send(progress(&machine.LifecycleServiceInstallProgress{Response: &machine.LifecycleServiceInstallProgress_ExitCode{ExitCode: code}}))
}

func progress(p *machine.LifecycleServiceInstallProgress) *machine.LifecycleServiceUpgradeResponse {
	return &machine.LifecycleServiceUpgradeResponse{Progress: p}
}

type imageService struct {
	machine.UnimplementedImageServiceServer

	m *machineService
}

// Pull pulls nothing: it records the image and answers with its name pinned to a digest,
// as Service.Pull of internal/app/images/images.go (v1.14.1) does.
func (i *imageService) Pull(req *machine.ImageServicePullRequest, srv grpc.ServerStreamingServer[machine.ImageServicePullResponse]) error {
	m := i.m

	m.mu.Lock()
	defer m.mu.Unlock()

	if !lifecycle(m.version) {
		return status.Error(codes.Unimplemented, "unknown service machine.ImageService")
	}

	if err := m.fails("Pull"); err != nil {
		return err
	}

	// internal/app/internal/ctrhelper (v1.14.1): the system containerd has no CRI namespace.
	into := req.GetContainerd()
	if into.GetDriver() == common.ContainerDriver_CONTAINERD && into.GetNamespace() == common.ContainerdNamespace_NS_CRI {
		return status.Error(codes.InvalidArgument, "cannot use CRI namespace with containerd driver")
	}

	m.pulls = append(m.pulls, req.GetImageRef())
	m.pulledInto = append(m.pulledInto, into.GetDriver().String()+" "+into.GetNamespace().String()+" "+req.GetImageRef())
	m.node.Journal.add("%s Pull", m.node.Name)

	return srv.Send(&machine.ImageServicePullResponse{Response: &machine.ImageServicePullResponse_Name{Name: pinned(req.GetImageRef())}})
}

// pinned is ref without its tag, at a digest made from ref ("name@sha256:…"); a ref with
// a digest stays as it is. Real nodes answer with the digest of the image they pulled.
func pinned(ref string) string {
	if strings.Contains(ref, "@") {
		return ref
	}

	name := ref
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		name = ref[:i]
	}

	sum := sha256.Sum256([]byte(ref))

	return name + "@sha256:" + hex.EncodeToString(sum[:])
}

// EtcdSnapshot streams the node's Snapshot, else a made-up one: SnapshotBytes of the
// node's own name.
func (m *machineService) EtcdSnapshot(_ *machine.EtcdSnapshotRequest, srv grpc.ServerStreamingServer[common.Data]) error {
	if err := m.etcd("EtcdSnapshot", "etcd snapshot"); err != nil {
		return err
	}

	m.node.Journal.add("%s EtcdSnapshot", m.node.Name)

	data := m.node.Snapshot
	if data == nil {
		data = SnapshotBytes(m.node.Name)
	}

	// In chunks, as machined relays etcd's stream: a reader sees more than one message.
	const chunk = 32 << 10

	for len(data) > 0 {
		n := min(chunk, len(data))
		if err := srv.Send(&common.Data{Bytes: data[:n]}); err != nil {
			return err
		}

		data = data[n:]
	}

	return nil
}

// SnapshotBytes is the etcd snapshot a fake node named name streams.
func SnapshotBytes(name string) []byte { return []byte("etcd snapshot of " + name + "\n") }
