// Package talostest runs fake Talos nodes: real gRPC servers over mTLS on 127.0.0.1 that
// serve MachineService (Version, ApplyConfiguration, Reboot, Read of the boot ID, the
// legacy Upgrade, Rollback, Bootstrap, Kubeconfig, Reset, EtcdMemberList, EtcdStatus,
// EtcdSnapshot, EtcdLeaveCluster, EtcdRemoveMemberByID, EtcdRecover), LifecycleService.Upgrade
// and ImageService.Pull (from Talos 1.13, as real nodes do) and the COSI state service,
// backed by an in-memory state holding the node's machine config, machine type and status,
// extensions and cluster members, with their resource definitions.
//
// A node answers as the real one of its release does where talops can tell: the apply
// modes and their messages (up to 1.13 AUTO reboots by itself when a change needs it and
// NO_REBOOT refuses such a change; 1.14 never reboots on apply), machined's validation,
// the roles of the client certificate and machined's method → role table, and reboots
// that take time (the old boot ID answers, then nothing listens, then the node boots).
// An upgrade switches the node's version and schematic when it next boots.
//
// A node started without a config waits in maintenance mode: TLS without client
// certificates, every client os:reader, until its first config switches it to mTLS. Nodes
// sharing a Cluster form one etcd (joins, leaves, the bootstrap) and list each other as
// discovery members; a graceful reset takes a control plane out of etcd and boots the node
// back into maintenance mode.
package talostest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/cosi-project/runtime/api/v1alpha1"
	"github.com/cosi-project/runtime/pkg/resource"
	"github.com/cosi-project/runtime/pkg/state"
	"github.com/cosi-project/runtime/pkg/state/impl/inmem"
	"github.com/cosi-project/runtime/pkg/state/impl/namespaced"
	"github.com/cosi-project/runtime/pkg/state/protobuf/server"
	"github.com/siderolabs/talos/pkg/machinery/api/machine"
	"github.com/siderolabs/talos/pkg/machinery/resources/cluster"
	"github.com/siderolabs/talos/pkg/machinery/resources/config"
	"github.com/siderolabs/talos/pkg/machinery/resources/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// Node is what a fake node runs.
type Node struct {
	// Name names the node in the Journal.
	Name string
	// Config is the running machine config (nil: the node waits in maintenance mode).
	Config []byte
	// Version is the Talos version tag.
	Version string
	// SchematicID is reported as the version of the "schematic" extension ("" for none).
	SchematicID string
	// Fail makes these calls fail with codes.Internal: "ApplyConfiguration", "Reboot",
	// "Bootstrap", "Reset", "Kubeconfig",
	// "Upgrade" (legacy), "Pull", "EtcdMemberList", "EtcdStatus", "EtcdSnapshot"; "LifecycleUpgrade" makes
	// the installer exit with code 1 instead.
	Fail []string
	// BootsOldVersion makes the node come back on the version and schematic it ran before
	// an upgrade, as a node whose new image failed to boot does.
	BootsOldVersion bool
	// UnhealthyOn is a Talos version the node never becomes ready on (its kubelet does not
	// start): an upgrade to it fails its health gate, a rollback from it succeeds.
	UnhealthyOn string
	// EtcdUnhealthy makes a control plane's etcd member report an error (and refuse a
	// legacy upgrade that is neither forced nor preserving).
	EtcdUnhealthy bool
	// EtcdMembers are the member hostnames a control plane lists (nil: itself alone).
	EtcdMembers []string
	// Journal, when set, records the node's changing calls in order with other nodes'.
	Journal *Journal
	// Mode is the platform mode the node reports and validates configs with: "cloud"
	// (the default, as a nocloud VM), "metal" or "container".
	Mode string
	// Reboot sets how long a reboot's phases last (zero: DefaultRebootPhase each).
	Reboot Reboot
	// Address is the node's address in its cluster: the one etcd's peer URLs and Talos'
	// discovery members name (talops reaches it through an endpoint mapping).
	Address string
	// Cluster, when set, is the cluster the node is part of: its control planes share one
	// etcd, and every node lists the others as discovery members. A configured control
	// plane started with a Cluster is an etcd member (the first one bootstraps it).
	Cluster *Cluster
	// Unmet are conditions the running node never meets, so it is not ready: a node of a
	// cluster without its CNI yet waits on {Name: "nodeReady", Reason: `node "NAME" is not
	// ready`}. While it boots, a node waits on its last services and its Kubernetes node.
	Unmet []runtime.UnmetCondition
	// Hostname is the hostname the node picks when its config sets none ("": Name), as
	// Talos picks talos-xxx-yyy: its HostnameStatus and the Nodename its kubelet registers
	// as say it.
	Hostname string
	// NoNodename publishes no Nodename resource, only the HostnameStatus.
	NoNodename bool
	// Snapshot is the etcd snapshot a control plane streams, in chunks as etcd's are (nil:
	// SnapshotBytes of its Name).
	Snapshot []byte
}

// platformName is the platform a node of that mode reports: a nocloud VM, bare metal,
// or a container.
func (n Node) platformName() string {
	switch n.platformMode() {
	case "container":
		return "container"
	case "metal":
		return "metal"
	default:
		return "nocloud"
	}
}

func (n Node) platformMode() string {
	if n.Mode == "" {
		return "cloud"
	}

	return n.Mode
}

// Server is a running fake node.
type Server struct {
	// Addr is host:port of its Talos API.
	Addr string

	m *machineService
}

// Start serves n on 127.0.0.1 until the test ends. Only clients with a certificate
// signed by ca get past the TLS handshake; the roles in that certificate decide the rest.
// A node without a Config starts in maintenance mode instead: it serves the maintenance API
// over TLS without client certificates (a self-signed certificate, every client os:reader)
// until it takes its first config, then mTLS as any node.
func Start(t testing.TB, ca *CA, n Node) *Server {
	t.Helper()

	st := state.WrapCore(namespaced.NewState(inmem.Build))
	ctx := context.Background()

	if err := register(ctx, st); err != nil {
		t.Fatal(err)
	}

	m := &machineService{
		node: n, state: st, bootID: bootID(n.Name, 0), version: n.Version, schematic: n.SchematicID,
		done: make(chan struct{}),
	}

	if n.Config == nil {
		if err := m.startMaintenance(ctx); err != nil {
			t.Fatal(err)
		}
	} else if err := m.startConfigured(ctx); err != nil {
		t.Fatalf("fake node config: %v", err)
	}

	if err := m.setSchematic(ctx); err != nil {
		t.Fatal(err)
	}

	mtls, insecure := ca.serverCreds(t)

	// Clients read the state through machined's access policy; the fake writes it directly.
	served := state.WrapCore(state.Filter(st, accessPolicy(st)))

	m.host = &host{addr: "127.0.0.1:0", newServer: func() *grpc.Server {
		creds, readonly := mtls, m.maintenance.Load()
		if readonly {
			creds = insecure
		}

		a := authorizer{readonly: readonly}
		srv := grpc.NewServer(grpc.Creds(creds), grpc.ChainUnaryInterceptor(a.unary), grpc.ChainStreamInterceptor(a.stream))
		machine.RegisterMachineServiceServer(srv, m)
		machine.RegisterLifecycleServiceServer(srv, &lifecycleService{m: m})
		machine.RegisterImageServiceServer(srv, &imageService{m: m})
		v1alpha1.RegisterStateServer(srv, server.NewState(served))

		return srv
	}}

	if err := m.host.up(); err != nil {
		t.Fatal(err)
	}

	t.Cleanup(func() {
		close(m.done)
		m.wg.Wait()
		m.host.close()

		m.mu.Lock()
		m.cancelRollback()
		m.mu.Unlock()
	})

	return &Server{Addr: m.host.addr, m: m}
}

// serverCreds are a node's two faces: mTLS with ca's clients, and apid's in maintenance mode.
func (ca *CA) serverCreds(t testing.TB) (mtls, insecure credentials.TransportCredentials) {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca.PEM)

	mtls = credentials.NewTLS(&tls.Config{
		Certificates: []tls.Certificate{ca.serverCert(t)},
		ClientCAs:    pool,
		ClientAuth:   tls.RequireAndVerifyClientCert,
		MinVersion:   tls.VersionTLS13,
	})

	// apid in maintenance mode: its own certificate, client certificates neither asked for
	// nor verified (tls.ServerOnly of provider.ServerConfig, v1.14.1).
	insecure = credentials.NewTLS(&tls.Config{
		Certificates: []tls.Certificate{NewCA(t).serverCert(t)},
		ClientAuth:   tls.NoClientCert,
		MinVersion:   tls.VersionTLS13,
	})

	return mtls, insecure
}

// startConfigured writes the state of a node that runs n.Config; a control plane of a
// Cluster is one of its etcd members.
func (m *machineService) startConfigured(ctx context.Context) error {
	mc, err := machineConfig(m.node.Config)
	if err != nil {
		return err
	}

	if err := m.state.Create(ctx, mc); err != nil {
		return err
	}

	m.controlPlane.Store(mc.Provider().Machine() != nil && mc.Provider().Machine().Type().IsControlPlane())
	m.active, m.persisted, m.current = m.node.Config, m.node.Config, mc.Provider()

	for _, r := range nodeResources(m.node, mc) {
		if err := m.state.Create(ctx, r); err != nil {
			return err
		}
	}

	if err := m.publishNames(ctx, mc.Provider()); err != nil {
		return err
	}

	if err := syncStaticPods(ctx, m.state, m.node.Name, mc.Provider()); err != nil {
		return err
	}

	if c := m.node.Cluster; c != nil {
		if m.controlPlane.Load() {
			if c.bootstrapped() {
				c.join(m.node.Name, m.node.Address)
			} else {
				c.bootstrap(m.node.Name, m.node.Address)
			}
		}

		c.register(m)
	}

	return nil
}

// nodeResources are the resources a node starts with besides its machine config.
func nodeResources(n Node, mc *config.MachineConfig) []resource.Resource {
	machineType := config.NewMachineType()
	if mc.Provider().Machine() != nil {
		machineType.SetMachineType(mc.Provider().Machine().Type())
	}

	status := runtime.NewMachineStatus()
	status.TypedSpec().Stage = runtime.MachineStageRunning
	status.TypedSpec().Status.Ready = len(n.Unmet) == 0
	status.TypedSpec().Status.UnmetConditions = n.Unmet

	// Talos lists every extension; the schematic one is only there for factory images.
	ext := runtime.NewExtensionStatus(runtime.NamespaceName, "0")
	ext.TypedSpec().Metadata.Name = "iscsi-tools"
	ext.TypedSpec().Metadata.Version = "v0.2.0"

	member := cluster.NewMember(cluster.NamespaceName, n.Name)
	member.TypedSpec().Hostname = n.Name
	member.TypedSpec().MachineType = machineType.MachineType()
	member.TypedSpec().OperatingSystem = "Talos (" + n.Version + ")"

	return []resource.Resource{machineType, status, ext, member}
}

// Applied is one config a node took (dry runs are not recorded).
type Applied struct {
	// Mode is the requested mode: AUTO, NO_REBOOT, STAGED or TRY.
	Mode   string
	Config []byte
}

// Applied returns the configs the node took, in order.
func (s *Server) Applied() []Applied {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()

	return append([]Applied(nil), s.m.applied...)
}

// DryRuns counts the dry-run apply calls the node answered.
func (s *Server) DryRuns() int {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()

	return s.m.dryRuns
}

// Boots counts the node's boots after the first: asked for, or by itself (a Talos ≤ 1.13
// apply in AUTO mode that needs a reboot, the legacy upgrade).
func (s *Server) Boots() int {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()

	return s.m.boots
}

// WaitRunning waits until a reboot under way is over and the node runs again.
func (s *Server) WaitRunning(t testing.TB) {
	t.Helper()

	deadline := time.Now().Add(10 * time.Second)

	for {
		s.m.mu.Lock()
		rebooting := s.m.rebooting
		s.m.mu.Unlock()

		if !rebooting {
			return
		}

		if time.Now().After(deadline) {
			t.Fatalf("node %s still rebooting after 10s", s.m.node.Name)
		}

		time.Sleep(5 * time.Millisecond)
	}
}

// Reboots counts the reboots asked of the node.
func (s *Server) Reboots() int {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()

	return s.m.reboots
}

// Upgrade is one upgrade a node was asked for.
type Upgrade struct {
	// API is "lifecycle" (LifecycleService.Upgrade) or "legacy" (MachineService.Upgrade).
	API   string
	Image string
	// ExitCode is the installer's exit code (lifecycle only).
	ExitCode int
}

// Upgrades returns the upgrades the node was asked for, in order.
func (s *Server) Upgrades() []Upgrade {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()

	return append([]Upgrade(nil), s.m.upgrades...)
}

// Pulls returns the images the node was asked to pull, in order.
func (s *Server) Pulls() []string {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()

	return append([]string(nil), s.m.pulls...)
}

// PulledInto returns every pull as "DRIVER NAMESPACE image" (CONTAINERD is Talos' own
// containerd for NS_SYSTEM; CRI is the pods' containerd), in order.
func (s *Server) PulledInto() []string {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()

	return append([]string(nil), s.m.pulledInto...)
}

// Running returns the version and schematic the node runs now.
func (s *Server) Running() (version, schematicID string) {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()

	return s.m.version, s.m.schematic
}

// Journal records changing calls across nodes, in the order they arrived.
type Journal struct {
	mu      sync.Mutex
	entries []string
}

func (j *Journal) add(format string, args ...any) {
	if j == nil {
		return
	}

	j.mu.Lock()
	defer j.mu.Unlock()

	j.entries = append(j.entries, fmt.Sprintf(format, args...))
}

// Entries returns "node Call MODE" lines, e.g. "k8s-master ApplyConfiguration AUTO".
func (j *Journal) Entries() []string {
	j.mu.Lock()
	defer j.mu.Unlock()

	return append([]string(nil), j.entries...)
}

func bootID(name string, boot int) string {
	return fmt.Sprintf("%08x-0000-4000-8000-%012d", len(name), boot)
}

// Closed returns an address on 127.0.0.1 where nothing listens: a node that is down.
func Closed(t testing.TB) string {
	t.Helper()

	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}

	addr := lis.Addr().String()
	lis.Close() //nolint:errcheck // only its free port is wanted

	return addr
}
