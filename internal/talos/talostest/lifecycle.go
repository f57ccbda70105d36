package talostest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/cosi-project/runtime/pkg/safe"
	"github.com/siderolabs/talos/pkg/machinery/api/common"
	"github.com/siderolabs/talos/pkg/machinery/api/machine"
	"github.com/siderolabs/talos/pkg/machinery/resources/config"
	"github.com/siderolabs/talos/pkg/machinery/resources/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
)

// errNotEnoughStartedMembers is etcd's refusal to remove the last member
// (rpctypes.ErrGRPCMemberNotEnoughStarted).
var errNotEnoughStartedMembers = status.Error(codes.FailedPrecondition, "etcdserver: re-configuration failed due to not enough started members")

// Bootstrap starts etcd as machined v1.14.1 does (v1alpha1_server.go): on a control plane
// only, and once: a node whose etcd has data answers AlreadyExists. With a Cluster, the
// node becomes its first member.
//
// A recovering bootstrap (RecoverEtcd) starts etcd from the snapshot EtcdRecover uploaded;
// without one, machined's etcd fails to start ("error verifying snapshot"): the fake
// fails the call with that error instead.
func (m *machineService) Bootstrap(_ context.Context, req *machine.BootstrapRequest) (*machine.BootstrapResponse, error) {
	if err := m.etcd("Bootstrap", "bootstrap"); err != nil {
		return nil, err
	}

	m.mu.Lock()
	defer m.mu.Unlock()

	if m.hasEtcdData() {
		return nil, status.Error(codes.AlreadyExists, "etcd data directory is not empty")
	}

	how := ""

	if req.GetRecoverEtcd() {
		if m.uploaded == nil {
			return nil, status.Error(codes.Internal, "error verifying snapshot: stat /var/lib/etcd.snapshot: no such file or directory")
		}

		m.recovered, m.uploaded = m.uploaded, nil
		how = " (recover)"

		if req.GetRecoverSkipHashCheck() {
			how = " (recover, hash check skipped)"
		}
	}

	m.bootstraps++
	m.etcdData = true
	m.node.Journal.add("%s Bootstrap%s", m.node.Name, how)

	if c := m.node.Cluster; c != nil {
		c.bootstrap(m.node.Name, m.node.Address)
	}

	return &machine.BootstrapResponse{Messages: []*machine.Bootstrap{{}}}, nil
}

// hasEtcdData reports whether the node's etcd directory has data: it was bootstrapped, it
// is a member of its Cluster's etcd, or (without a Cluster) it runs a control plane's
// config from the start, as every node of the fake did before it had a bootstrap.
func (m *machineService) hasEtcdData() bool {
	if m.etcdData {
		return true
	}

	if c := m.node.Cluster; c != nil {
		return c.isMember(m.node.Name)
	}

	return m.node.Config != nil
}

// EtcdRecover takes a snapshot for a recovering bootstrap, as machined v1.14.1 does: on a
// control plane whose etcd is not running yet, kept until the bootstrap.
func (m *machineService) EtcdRecover(srv grpc.ClientStreamingServer[common.Data, machine.EtcdRecoverResponse]) error {
	if err := m.etcd("EtcdRecover", "etcd recover"); err != nil {
		return err
	}

	var data []byte

	for {
		msg, err := srv.Recv()
		if errors.Is(err, io.EOF) {
			break
		}

		if err != nil {
			return err
		}

		data = append(data, msg.GetBytes()...)
	}

	m.mu.Lock()
	m.uploaded = data
	m.mu.Unlock()

	m.node.Journal.add("%s EtcdRecover %d bytes", m.node.Name, len(data))

	return srv.SendAndClose(&machine.EtcdRecoverResponse{Messages: []*machine.EtcdRecover{{}}})
}

// Recovered is the snapshot a recovering bootstrap started the node's etcd from (nil:
// none).
func (s *Server) Recovered() []byte {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()

	return s.m.recovered
}

// Bootstraps counts the Bootstrap calls the node took.
func (s *Server) Bootstraps() int {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()

	return s.m.bootstraps
}

// Kubeconfig streams the admin kubeconfig of the node's cluster as a gzipped tar holding
// one file, kubeconfig, as machined does (to match the Copy protocol). Its client key is
// made up from the cluster's name: it authenticates nowhere.
func (m *machineService) Kubeconfig(_ *emptypb.Empty, srv grpc.ServerStreamingServer[common.Data]) error {
	if err := m.etcd("Kubeconfig", "kubeconfig"); err != nil {
		return err
	}

	m.mu.Lock()
	cfg := m.current
	m.mu.Unlock()

	if cfg == nil || cfg.K8sClusterConfig() == nil || cfg.K8sClusterConfig().ClusterEndpoint() == nil {
		return status.Error(codes.FailedPrecondition, "cluster name and endpoint are not configured (.cluster.controlPlane.endpoint or KubeClusterConfig document)")
	}

	k8s := cfg.K8sClusterConfig()
	kc := KubeconfigBytes(k8s.ClusterName(), k8s.ClusterEndpoint().String())

	var buf bytes.Buffer

	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)

	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "kubeconfig", Size: int64(len(kc)), Mode: 0o600}); err != nil {
		return err
	}

	if _, err := tw.Write(kc); err != nil {
		return err
	}

	if err := errors.Join(tw.Close(), zw.Close()); err != nil {
		return err
	}

	return srv.Send(&common.Data{Bytes: buf.Bytes()})
}

// KubeconfigBytes is the admin kubeconfig a fake control plane of cluster name, with its
// Kubernetes API at endpoint, gives.
func KubeconfigBytes(name, endpoint string) []byte {
	key := base64.StdEncoding.EncodeToString([]byte("fake admin key of " + name))

	return fmt.Appendf(nil, `apiVersion: v1
kind: Config
clusters:
  - name: %[1]s
    cluster:
      server: %[2]s
contexts:
  - name: admin@%[1]s
    context:
      cluster: %[1]s
      namespace: default
      user: admin@%[1]s
current-context: admin@%[1]s
users:
  - name: admin@%[1]s
    user:
      client-certificate-data: %[3]s
      client-key-data: %[4]s
`, name, endpoint, base64.StdEncoding.EncodeToString([]byte("fake admin certificate")), key)
}

// Reset is one reset a node was asked for.
type Reset struct {
	Graceful, Reboot bool
	// Mode is the wipe mode: ALL, SYSTEM_DISK or USER_DISKS.
	Mode string
	// Wiped are the labels of the system partitions asked to be wiped (none: the whole
	// system disk).
	Wiped []string
	// LeftEtcd is set when the reset took the node out of etcd first.
	LeftEtcd bool
	// Err is why the reset sequence stopped, "" when it went through.
	Err string
}

// Resets returns the resets the node was asked for, in order.
func (s *Server) Resets() []Reset {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()

	return slices.Clone(s.m.resets)
}

// volumes are the system volumes a node has, by label.
var volumes = []string{"STATE", "EPHEMERAL", "META"}

// Reset checks the request as machined v1.14.1 does (v1alpha1_server.go), answers at once
// and runs the reset sequence a moment later (v1alpha1_sequencer.go): in container mode it
// only stops the node; otherwise a graceful reset of a control plane leaves etcd first
// (LeaveEtcd: the sequence stops when etcd refuses), then the disks are wiped and the node
// reboots into maintenance mode, or shuts down without Reboot.
func (m *machineService) Reset(_ context.Context, req *machine.ResetRequest) (*machine.ResetResponse, error) {
	if err := m.fails("Reset"); err != nil {
		return nil, err
	}

	if len(req.GetUserDisksToWipe()) > 0 && req.GetMode() == machine.ResetRequest_SYSTEM_DISK {
		return nil, errors.New("reset failed: invalid input, wipe mode SYSTEM_DISK doesn't support UserDisksToWipe parameter")
	}

	var wiped []string

	if len(req.GetSystemPartitionsToWipe()) > 0 {
		if req.GetMode() == machine.ResetRequest_USER_DISKS {
			return nil, errors.New("reset failed: invalid input, wipe mode USER_DISKS doesn't support SystemPartitionsToWipe parameter")
		}

		for _, p := range req.GetSystemPartitionsToWipe() {
			if !slices.Contains(volumes, p.GetLabel()) {
				return nil, fmt.Errorf("failed to get volume status with label %q: resource VolumeStatuses.block.talos.dev(runtime/%s@undefined) doesn't exist", p.GetLabel(), p.GetLabel())
			}

			if p.GetWipe() {
				wiped = append(wiped, p.GetLabel())
			}
		}
	}

	m.mu.Lock()
	defer m.mu.Unlock()

	m.resets = append(m.resets, Reset{Graceful: req.GetGraceful(), Reboot: req.GetReboot(), Mode: req.GetMode().String(), Wiped: wiped})
	m.node.Journal.add("%s Reset", m.node.Name)

	if m.rebooting {
		// machined runs one sequence at a time: the reset sequence, started in the
		// background after the answer, fails on the lock and is only logged.
		m.resets[len(m.resets)-1].Err = "locked"

		return &machine.ResetResponse{Messages: []*machine.Reset{{ActorId: fmt.Sprintf("reset-%d", len(m.resets))}}}, nil
	}

	m.rebooting = true
	i := len(m.resets) - 1

	m.wg.Go(func() { m.resetSequence(i, req) })

	return &machine.ResetResponse{Messages: []*machine.Reset{{ActorId: fmt.Sprintf("reset-%d", len(m.resets))}}}, nil
}

// resetSequence runs reset i in the background, as machined's sequencer does.
func (m *machineService) resetSequence(i int, req *machine.ResetRequest) {
	timing := m.node.Reboot.withDefaults()

	if !m.sleep(timing.Answering) {
		return
	}

	container := m.node.platformMode() == "container"

	if !container && req.GetGraceful() && m.controlPlane.Load() && m.node.Cluster != nil {
		if err := m.node.Cluster.leave(m.node.Name); err != nil {
			m.mu.Lock()
			m.resets[i].Err = "leave etcd: " + err.Error()
			m.rebooting = false
			m.mu.Unlock()

			return
		}

		m.mu.Lock()
		m.resets[i].LeftEtcd = true
		m.mu.Unlock()
	}

	m.host.down()

	if container || !req.GetReboot() {
		return // stopped: nothing listens any more
	}

	if c := m.node.Cluster; c != nil {
		c.deregister(m)
	}

	m.mu.Lock()
	err := m.wipe(context.Background())
	m.mu.Unlock()

	if err != nil || !m.sleep(timing.Down) {
		return
	}

	if err := m.host.up(); err != nil {
		return
	}

	m.mu.Lock()
	m.rebooting = false
	m.mu.Unlock()
}

// wipe boots the node again with nothing of its config: it waits in maintenance mode, with
// no etcd data; m.mu is held.
func (m *machineService) wipe(ctx context.Context) error {
	m.boots++
	m.bootID = bootID(m.node.Name, m.boots)
	m.cancelRollback()
	m.maintenance.Store(true)
	m.controlPlane.Store(false)
	m.active, m.persisted, m.current = nil, nil, nil
	m.etcdData = false
	m.node.Config = nil

	if mc, err := safe.StateGetByID[*config.MachineConfig](ctx, m.state, config.ActiveID); err == nil {
		if err := m.state.Destroy(ctx, mc.Metadata()); err != nil {
			return err
		}
	}

	if mt, err := safe.StateGetByID[*config.MachineType](ctx, m.state, config.MachineTypeID); err == nil {
		if err := m.state.Destroy(ctx, mt.Metadata()); err != nil {
			return err
		}
	}

	ms, err := safe.StateGetByID[*runtime.MachineStatus](ctx, m.state, runtime.MachineStatusID)
	if err != nil {
		return err
	}

	ms.TypedSpec().Stage = runtime.MachineStageMaintenance
	ms.TypedSpec().Status.Ready = false
	ms.TypedSpec().Status.UnmetConditions = nil

	if err := m.state.Update(ctx, ms); err != nil {
		return err
	}

	return m.forgetNames(ctx)
}

// EtcdLeaveCluster takes the node out of etcd, as machined v1.14.1 does; etcd refuses to
// remove its last member.
func (m *machineService) EtcdLeaveCluster(context.Context, *machine.EtcdLeaveClusterRequest) (*machine.EtcdLeaveClusterResponse, error) {
	if err := m.etcd("EtcdLeaveCluster", "etcd leave"); err != nil {
		return nil, err
	}

	if c := m.node.Cluster; c != nil {
		if err := c.leave(m.node.Name); err != nil {
			return nil, fmt.Errorf("failed to leave cluster: failed to remove member: %w", err)
		}
	}

	m.node.Journal.add("%s EtcdLeaveCluster", m.node.Name)

	return &machine.EtcdLeaveClusterResponse{Messages: []*machine.EtcdLeaveCluster{{}}}, nil
}

// EtcdRemoveMemberByID removes another member from etcd (one that cannot leave by
// itself), as machined v1.14.1 does: NotFound for an ID etcd does not list.
func (m *machineService) EtcdRemoveMemberByID(_ context.Context, req *machine.EtcdRemoveMemberByIDRequest) (*machine.EtcdRemoveMemberByIDResponse, error) {
	if err := m.etcd("EtcdRemoveMemberByID", "etcd remove member"); err != nil {
		return nil, err
	}

	c := m.node.Cluster
	if c == nil {
		return nil, status.Errorf(codes.NotFound, "failed to remove member %d: etcdserver: member not found", req.GetMemberId())
	}

	found, err := c.removeByID(req.GetMemberId())

	switch {
	case !found:
		return nil, status.Errorf(codes.NotFound, "failed to remove member %d: etcdserver: member not found", req.GetMemberId())
	case err != nil:
		return nil, fmt.Errorf("failed to remove member: failed to remove member %d: %w", req.GetMemberId(), err)
	}

	m.node.Journal.add("%s EtcdRemoveMemberByID %x", m.node.Name, req.GetMemberId())

	return &machine.EtcdRemoveMemberByIDResponse{Messages: []*machine.EtcdRemoveMemberByID{{}}}, nil
}
