// Package talostest runs fake Talos nodes: real gRPC servers over mTLS on 127.0.0.1 that
// serve MachineService.Version and the COSI state service, backed by an in-memory state
// holding the node's machine config and extensions.
package talostest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"testing"

	"github.com/cosi-project/runtime/api/v1alpha1"
	"github.com/cosi-project/runtime/pkg/state"
	"github.com/cosi-project/runtime/pkg/state/impl/inmem"
	"github.com/cosi-project/runtime/pkg/state/impl/namespaced"
	"github.com/cosi-project/runtime/pkg/state/protobuf/server"
	"github.com/siderolabs/talos/pkg/machinery/api/machine"
	"github.com/siderolabs/talos/pkg/machinery/config/configloader"
	"github.com/siderolabs/talos/pkg/machinery/resources/config"
	"github.com/siderolabs/talos/pkg/machinery/resources/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/protobuf/types/known/emptypb"
)

// Node is what a fake node runs.
type Node struct {
	// Config is the running machine config.
	Config []byte
	// Version is the Talos version tag.
	Version string
	// SchematicID is reported as the version of the "schematic" extension ("" for none).
	SchematicID string
}

// Server is a running fake node.
type Server struct {
	// Addr is host:port of its Talos API.
	Addr string
}

// Start serves n on 127.0.0.1 until the test ends. Only clients with a certificate
// signed by ca get past the TLS handshake.
func Start(t testing.TB, ca *CA, n Node) *Server {
	t.Helper()

	st := state.WrapCore(namespaced.NewState(inmem.Build))
	ctx := context.Background()

	provider, err := configloader.NewFromBytes(n.Config)
	if err != nil {
		t.Fatalf("fake node config: %v", err)
	}

	if err := st.Create(ctx, config.NewMachineConfig(provider)); err != nil {
		t.Fatal(err)
	}

	// Talos lists every extension; the schematic one is only there for factory images.
	extensions := []string{"iscsi-tools"}
	if n.SchematicID != "" {
		extensions = append(extensions, "schematic")
	}

	for i, name := range extensions {
		ext := runtime.NewExtensionStatus(runtime.NamespaceName, string(rune('0'+i)))
		ext.TypedSpec().Metadata.Name = name
		ext.TypedSpec().Metadata.Version = "v0.2.0"

		if name == "schematic" {
			ext.TypedSpec().Metadata.Version = n.SchematicID
		}

		if err := st.Create(ctx, ext); err != nil {
			t.Fatal(err)
		}
	}

	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca.PEM)

	creds := credentials.NewTLS(&tls.Config{
		Certificates: []tls.Certificate{ca.serverCert(t)},
		ClientCAs:    pool,
		ClientAuth:   tls.RequireAndVerifyClientCert,
		MinVersion:   tls.VersionTLS13,
	})

	srv := grpc.NewServer(grpc.Creds(creds))
	machine.RegisterMachineServiceServer(srv, &machineService{version: n.Version})
	v1alpha1.RegisterStateServer(srv, server.NewState(st))

	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}

	go srv.Serve(lis) //nolint:errcheck // ends with Stop

	t.Cleanup(srv.Stop)

	return &Server{Addr: lis.Addr().String()}
}

type machineService struct {
	machine.UnimplementedMachineServiceServer

	version string
}

func (m *machineService) Version(context.Context, *emptypb.Empty) (*machine.VersionResponse, error) {
	return &machine.VersionResponse{Messages: []*machine.Version{{
		Version:  &machine.VersionInfo{Tag: m.version, Arch: "amd64"},
		Platform: &machine.PlatformInfo{Name: "nocloud", Mode: "cloud"},
	}}}, nil
}

// Closed returns an address on 127.0.0.1 where nothing listens: a node that is down.
func Closed(t testing.TB) string {
	t.Helper()

	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}

	addr := lis.Addr().String()
	lis.Close() //nolint:errcheck

	return addr
}
