package talos_test

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/siderolabs/talos/pkg/machinery/role"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/talops/talops/internal/talos"
	"github.com/talops/talops/internal/talos/talostest"
)

// workerConfig is the least config machined's validation takes (it wants a CA).
const workerConfig = `version: v1alpha1
machine:
  type: worker
  token: fake-machine-token
  ca:
    crt: ZmFrZQ==
cluster:
  clusterName: fake
`

// lab starts fake nodes and returns a dialer that reaches them by name.
func lab(t *testing.T, ca *talostest.CA, client talostest.KeyPair, nodes map[string]string) *talos.ClientDialer {
	t.Helper()

	d, err := talos.NewDialer(talos.Options{
		Talosconfig: talostest.Talosconfig(t, "fake", ca.PEM, client),
		Endpoint:    func(address string) string { return nodes[address] },
	})
	if err != nil {
		t.Fatal(err)
	}

	return d
}

func TestReadAll_EachNodeReportsWhatItRunsAndADownNodeDoesNotStopTheOthers(t *testing.T) {
	ca := talostest.NewCA(t)
	a := talostest.Start(t, ca, talostest.Node{Config: []byte(workerConfig), Version: "v1.13.9", SchematicID: "abc123"})
	b := talostest.Start(t, ca, talostest.Node{Config: []byte(workerConfig), Version: "v1.13.8"})

	d := lab(t, ca, ca.ClientCert(t), map[string]string{"10.0.0.1": a.Addr, "10.0.0.2": b.Addr, "10.0.0.3": talostest.Closed(t)})

	res := talos.ReadAll(context.Background(), d, []talos.Target{
		{Name: "a", Address: "10.0.0.1"}, {Name: "b", Address: "10.0.0.2"}, {Name: "down", Address: "10.0.0.3"},
	}, 5*time.Second)

	if res[0].Err != nil || res[0].Value.Version != "v1.13.9" || res[0].Value.SchematicID != "abc123" || !strings.Contains(string(res[0].Value.Config), "fake-machine-token") {
		t.Errorf("node a: %+v", res[0])
	}

	if res[1].Err != nil || res[1].Value.Version != "v1.13.8" || res[1].Value.SchematicID != "" {
		t.Errorf("node b (no schematic extension): %+v", res[1])
	}

	if res[2].Err == nil || !strings.HasPrefix(res[2].Err.Error(), "node down (10.0.0.3): ") {
		t.Errorf("node down: %v", res[2].Err)
	}
}

func TestDial_ThroughTheContextEndpoints(t *testing.T) {
	ca := talostest.NewCA(t)
	a := talostest.Start(t, ca, talostest.Node{Config: []byte(workerConfig), Version: "v1.14.1"})

	d, err := talos.NewDialer(talos.Options{Talosconfig: talostest.Talosconfig(t, "fake", ca.PEM, ca.ClientCert(t), a.Addr)})
	if err != nil {
		t.Fatal(err)
	}

	res := talos.ReadAll(context.Background(), d, []talos.Target{{Name: "a", Address: "10.0.0.1"}}, 5*time.Second)
	if res[0].Err != nil || res[0].Value.Version != "v1.14.1" {
		t.Errorf("through the endpoint: %+v", res[0])
	}
}

// Through an endpoint that does not answer, a node's error names the node as well as the
// endpoint gRPC dialled, and is still Unavailable.
func TestDial_AnErrorThroughAnEndpointNamesTheNode(t *testing.T) {
	ca := talostest.NewCA(t)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}

	closed := l.Addr().String()
	l.Close() //nolint:errcheck // the port is wanted closed

	d, err := talos.NewDialer(talos.Options{Talosconfig: talostest.Talosconfig(t, "fake", ca.PEM, ca.ClientCert(t), closed)})
	if err != nil {
		t.Fatal(err)
	}

	res := talos.ReadAll(context.Background(), d, []talos.Target{{Name: "w1", Address: "10.0.0.7"}}, 5*time.Second)
	if res[0].Err == nil || !talos.Unavailable(res[0].Err) || !strings.Contains(res[0].Err.Error(), "node 10.0.0.7, through the endpoint "+closed+": ") {
		t.Errorf("a node behind an endpoint that does not answer: %v", res[0].Err)
	}
}

func TestFakeNode_RefusesAClientWhoseCertificateAnotherCASigned(t *testing.T) {
	ca := talostest.NewCA(t)
	a := talostest.Start(t, ca, talostest.Node{Config: []byte(workerConfig), Version: "v1.13.9"})

	stranger := talostest.NewCA(t).ClientCert(t)
	d := lab(t, ca, stranger, map[string]string{"10.0.0.1": a.Addr})

	res := talos.ReadAll(context.Background(), d, []talos.Target{{Name: "a", Address: "10.0.0.1"}}, 5*time.Second)
	// The handshake fails (the node's alert or its closed connection, whichever the client
	// sees first), so the call never reaches the node's services.
	if res[0].Err == nil || status.Code(res[0].Err) != codes.Unavailable {
		t.Fatalf("a client signed by another CA: %+v", res[0])
	}

	// Without any client certificate the handshake itself fails.
	conn, err := tls.Dial("tcp", a.Addr, &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS13}) //nolint:gosec // the server, not the client, is under test
	if err == nil {
		defer conn.Close() //nolint:errcheck // the test is done with it

		// TLS 1.3 reports the missing client certificate on the first read.
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err = conn.Read(make([]byte, 1)); err == nil {
			t.Fatal("a client without a certificate was served")
		}
	}
}

func TestNewDialer_RefusesAContextWithoutClientCertificateAndNeverShowsTheKey(t *testing.T) {
	ca := talostest.NewCA(t)
	client := ca.ClientCert(t)

	cfg := talostest.Talosconfig(t, "fake", ca.PEM, client)
	key := cfg.Contexts["fake"].Key
	cfg.Contexts["fake"].Crt = ""

	_, err := talos.NewDialer(talos.Options{Talosconfig: cfg})
	if err == nil || err.Error() != `talosconfig context "fake" has no client certificate (crt and key): talops only speaks mTLS to nodes` {
		t.Errorf("err = %v", err)
	}

	cfg.Contexts["fake"].CA = ""
	cfg.Contexts["fake"].Crt = base64.StdEncoding.EncodeToString(client.Crt)

	_, err = talos.NewDialer(talos.Options{Talosconfig: cfg})
	if err == nil || err.Error() != `talosconfig context "fake" has no ca: talops only speaks mTLS to nodes` {
		t.Errorf("err = %v", err)
	}

	if _, err = talos.NewDialer(talos.Options{Talosconfig: cfg, Context: "other"}); err == nil || strings.Contains(err.Error(), key) {
		t.Errorf("err = %v", err)
	}
}

func TestNewDialer_RefusesACertificateWithoutOSAdminBeforeAnyCall(t *testing.T) {
	ca := talostest.NewCA(t)

	for _, tc := range []struct {
		name  string
		roles []role.Role
		want  string // "" when the dialer is made
	}{
		{"Admin", []role.Role{role.Admin}, ""},
		{"AdminAmongOthers", []role.Role{role.Reader, role.Admin}, ""},
		{"Reader", []role.Role{role.Reader}, `talosconfig context "fake" has a client certificate with os:reader: talops needs os:admin to read running configs and apply them (talosctl config new --roles os:admin)`},
		{"Operator", []role.Role{role.Operator}, `talosconfig context "fake" has a client certificate with os:operator: talops needs os:admin`},
		{"NoRole", nil, `talosconfig context "fake" has a client certificate with no Talos role: talops needs os:admin`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := talostest.Talosconfig(t, "fake", ca.PEM, ca.ClientCertRole(t, tc.roles...))

			_, err := talos.NewDialer(talos.Options{Talosconfig: cfg})

			var re *talos.RoleError

			switch {
			case tc.want == "" && err != nil:
				t.Errorf("NewDialer: %v", err)
			case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want) || !errors.As(err, &re)):
				t.Errorf("NewDialer: %v, want a RoleError %q", err, tc.want)
			}
		})
	}
}
