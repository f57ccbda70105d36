package talostest

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"net"
	"testing"
	"time"

	talosx509 "github.com/siderolabs/crypto/x509"
	clientconfig "github.com/siderolabs/talos/pkg/machinery/client/config"
	"github.com/siderolabs/talos/pkg/machinery/role"
)

// CA is a certificate authority for fake nodes and their clients, as the OS CA of a
// Talos cluster signs both apid's certificate and talosctl's.
type CA struct {
	cert *x509.Certificate
	key  ed25519.PrivateKey
	// PEM is the CA certificate.
	PEM []byte
}

// NewCA generates a CA.
func NewCA(t testing.TB) *CA {
	t.Helper()

	pub, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}

	tmpl := &x509.Certificate{
		SerialNumber:          serial(t),
		Subject:               pkix.Name{Organization: []string{"talos"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}

	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, key)
	if err != nil {
		t.Fatal(err)
	}

	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}

	return &CA{cert: cert, key: key, PEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// CAFrom is the CA of a certificate and its Ed25519 key, PEM-encoded as a machine
// config's machine.ca holds them: a fake node that serves with it takes the talosconfigs
// of the cluster's own secrets bundle, as a real node does once configured.
func CAFrom(t testing.TB, crt, key []byte) *CA {
	t.Helper()

	kp := &talosx509.PEMEncodedCertificateAndKey{Crt: crt, Key: key}

	cert, err := kp.GetCert()
	if err != nil {
		t.Fatal(err)
	}

	k, err := kp.GetEd25519Key()
	if err != nil {
		t.Fatal(err)
	}

	return &CA{cert: cert, key: k, PEM: crt}
}

// KeyPair is a certificate and its key, PEM-encoded.
type KeyPair struct {
	Crt, Key []byte
}

// ClientCert issues a client certificate with the os:admin role.
func (ca *CA) ClientCert(t testing.TB) KeyPair {
	t.Helper()

	return ca.ClientCertRole(t, role.Admin)
}

// ClientCertRole issues a client certificate with these roles, in its organization as
// talosctl config new writes them; none gives a certificate with no role.
func (ca *CA) ClientCertRole(t testing.TB, roles ...role.Role) KeyPair {
	t.Helper()

	return ca.issue(t, &x509.Certificate{
		Subject:     pkix.Name{Organization: role.MakeSet(roles...).Strings()},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
}

func (ca *CA) serverCert(t testing.TB) tls.Certificate {
	t.Helper()

	kp := ca.issue(t, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "apid"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})

	c, err := tls.X509KeyPair(kp.Crt, kp.Key)
	if err != nil {
		t.Fatal(err)
	}

	return c
}

func (ca *CA) issue(t testing.TB, tmpl *x509.Certificate) KeyPair {
	t.Helper()

	pub, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}

	tmpl.SerialNumber = serial(t)
	tmpl.NotBefore = time.Now().Add(-time.Hour)
	tmpl.NotAfter = time.Now().Add(24 * time.Hour)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature

	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, pub, ca.key)
	if err != nil {
		t.Fatal(err)
	}

	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}

	return KeyPair{
		Crt: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		Key: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}),
	}
}

// Talosconfig returns a talosconfig whose current context, named name, trusts ca and
// authenticates with client. Endpoints may be empty (talops then dials each node).
func Talosconfig(t testing.TB, name string, ca []byte, client KeyPair, endpoints ...string) *clientconfig.Config {
	t.Helper()

	return &clientconfig.Config{
		Context: name,
		Contexts: map[string]*clientconfig.Context{name: {
			Endpoints: endpoints,
			CA:        base64.StdEncoding.EncodeToString(ca),
			Crt:       base64.StdEncoding.EncodeToString(client.Crt),
			Key:       base64.StdEncoding.EncodeToString(client.Key),
		}},
	}
}

// TalosconfigBytes encodes a talosconfig as talosctl writes it.
func TalosconfigBytes(t testing.TB, cfg *clientconfig.Config) []byte {
	t.Helper()

	b, err := cfg.Bytes()
	if err != nil {
		t.Fatal(err)
	}

	return b
}

func serial(t testing.TB) *big.Int {
	t.Helper()

	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		t.Fatal(err)
	}

	return n
}
