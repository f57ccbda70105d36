package scaffold_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
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

	clientconfig "github.com/siderolabs/talos/pkg/machinery/client/config"
	gensecrets "github.com/siderolabs/talos/pkg/machinery/config/generate/secrets"

	"github.com/talops/talops/internal/scaffold"
)

// nodeCert is a server certificate signed by the bundle's OS CA, as a node configured from
// the bundle presents on the Talos API.
func nodeCert(t *testing.T, b *gensecrets.Bundle) tls.Certificate {
	t.Helper()

	caBlock, _ := pem.Decode(b.Certs.OS.Crt)
	keyBlock, _ := pem.Decode(b.Certs.OS.Key)

	if caBlock == nil || keyBlock == nil {
		t.Fatal("the OS CA is not PEM")
	}

	ca, err := x509.ParseCertificate(caBlock.Bytes)
	if err != nil {
		t.Fatal(err)
	}

	caKey, err := x509.ParsePKCS8PrivateKey(keyBlock.Bytes)
	if err != nil {
		t.Fatal(err)
	}

	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}

	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "lab-cp1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
	}

	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey.(crypto.Signer))
	if err != nil {
		t.Fatal(err)
	}

	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func TestTalosconfig_AuthenticatesToANodeOfTheSameBundle(t *testing.T) {
	t.Parallel()

	b := newBundle(t)
	clock := func() time.Time { return now.Add(time.Minute) }

	for _, tc := range []struct {
		name   string
		signer *gensecrets.Bundle
		ok     bool
	}{
		{"same bundle", b, true},
		{"another cluster's bundle", newBundle(t), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			data, err := scaffold.Talosconfig(labCluster(t), tc.signer, scaffold.TalosconfigSpec{Role: "os:admin", TTL: time.Hour, Now: now})
			if err != nil {
				t.Fatal(err)
			}

			cfg, err := clientconfig.FromBytes(data)
			if err != nil {
				t.Fatal(err)
			}

			ctx := cfg.Contexts["lab"]
			crt, _ := base64.StdEncoding.DecodeString(ctx.Crt)
			key, _ := base64.StdEncoding.DecodeString(ctx.Key)

			client, err := tls.X509KeyPair(crt, key)
			if err != nil {
				t.Fatal(err)
			}

			nodeCAs := x509.NewCertPool()
			nodeCAs.AppendCertsFromPEM(b.Certs.OS.Crt)

			// The client trusts the node either way: only its own certificate is on trial.
			clientRoots := x509.NewCertPool()
			clientRoots.AppendCertsFromPEM(b.Certs.OS.Crt)

			ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{
				Certificates: []tls.Certificate{nodeCert(t, b)}, ClientAuth: tls.RequireAndVerifyClientCert,
				ClientCAs: nodeCAs, Time: clock, MinVersion: tls.VersionTLS13,
			})
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close() //nolint:errcheck // the test is done with it

			served := make(chan error, 1)

			go func() {
				conn, err := ln.Accept()
				if err != nil {
					served <- err

					return
				}
				defer conn.Close() //nolint:errcheck // the test is done with it

				served <- conn.(*tls.Conn).Handshake()
			}()

			conn, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{
				Certificates: []tls.Certificate{client}, RootCAs: clientRoots, Time: clock, MinVersion: tls.VersionTLS13,
			})
			if err == nil {
				// TLS 1.3 clients learn of a refused certificate on their first read; the
				// node's side is what is judged.
				_, _ = conn.Read(make([]byte, 1))
				_ = conn.Close()
			}

			nodeErr := <-served

			switch {
			case tc.ok && nodeErr != nil:
				t.Errorf("the node refused the talosconfig's certificate: %v", nodeErr)
			case !tc.ok && nodeErr == nil:
				t.Error("the node accepted a certificate of another cluster's CA")
			}
		})
	}
}
