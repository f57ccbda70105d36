package scaffold_test

import (
	"bytes"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"filippo.io/age"
	clientconfig "github.com/siderolabs/talos/pkg/machinery/client/config"
	"github.com/siderolabs/talos/pkg/machinery/config"
	gensecrets "github.com/siderolabs/talos/pkg/machinery/config/generate/secrets"
	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/scaffold"
	"github.com/talops/talops/internal/secrets/sops"
)

var now = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

func spec(recipients ...string) scaffold.Spec {
	return scaffold.Spec{
		Name: "lab", Endpoint: "https://10.0.20.100:6443", TalosVersion: "v1.13.9", KubernetesVersion: "v1.36.0",
		Recipients: recipients,
	}
}

func newBundle(t *testing.T) *gensecrets.Bundle {
	t.Helper()

	contract, err := config.ParseContractFromVersion("v1.13.9")
	if err != nil {
		t.Fatal(err)
	}

	b, err := gensecrets.NewBundle(gensecrets.NewFixedClock(now), contract)
	if err != nil {
		t.Fatal(err)
	}

	return b
}

func loadFiles(t *testing.T, files []scaffold.File, extra ...scaffold.File) *cluster.Cluster {
	t.Helper()

	m := cluster.MapFiles{}
	for _, f := range append(files, extra...) {
		m[f.Path] = f.Data
	}

	c, err := cluster.Load("lab", m)
	if err != nil {
		t.Fatalf("load the new repository: %v", err)
	}

	return c
}

func paths(files []scaffold.File) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
	}

	return out
}

func TestFiles_EncryptedRepositoryLoads(t *testing.T) {
	t.Parallel()

	id, _ := age.GenerateX25519Identity()
	id2, _ := age.GenerateX25519Identity()

	files, err := scaffold.Files(spec(id.Recipient().String(), id2.Recipient().String()))
	if err != nil {
		t.Fatal(err)
	}

	if got, want := paths(files), []string{"talops.yaml", "schematics/base.yaml", "patches/all.yaml", "nodes/lab-cp1.yaml", "nodes/lab-worker1.yaml", ".sops.yaml", ".gitignore"}; !slices.Equal(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}

	c := loadFiles(t, files, scaffold.File{Path: scaffold.EncryptedBundle, Data: []byte("placeholder: x\n")})

	if c.Spec.Secrets != "secrets.sops.yaml" || c.Spec.Cluster.Name != "lab" || c.Spec.TalosVersion != "v1.13.9" || c.Spec.KubernetesVersion != "v1.36.0" {
		t.Errorf("spec %+v", c.Spec)
	}

	var roles, addresses []string
	for _, n := range c.Spec.Nodes {
		roles = append(roles, string(n.Role))
		addresses = append(addresses, n.Address)
	}

	if !slices.Equal(roles, []string{"controlplane", "worker"}) || !slices.Equal(addresses, []string{"10.0.20.100", "192.0.2.11"}) {
		t.Errorf("nodes %v at %v, want a control plane at the endpoint's host and a placeholder worker", roles, addresses)
	}

	var sopsCfg struct {
		CreationRules []struct {
			PathRegex string `yaml:"path_regex"`
			Age       string `yaml:"age"`
		} `yaml:"creation_rules"`
	}
	if err := yaml.Unmarshal(files[5].Data, &sopsCfg); err != nil {
		t.Fatal(err)
	}

	want := id.Recipient().String() + "," + id2.Recipient().String()
	if len(sopsCfg.CreationRules) != 1 || sopsCfg.CreationRules[0].Age != want || sopsCfg.CreationRules[0].PathRegex != `secrets\.sops\.yaml$` {
		t.Errorf(".sops.yaml rules %+v, want one for secrets.sops.yaml to %s", sopsCfg.CreationRules, want)
	}
}

func TestFiles_PlaintextRepositoryNamesAndIgnoresTheBundle(t *testing.T) {
	t.Parallel()

	s := spec()
	s.Plaintext = true

	files, err := scaffold.Files(s)
	if err != nil {
		t.Fatal(err)
	}

	if slices.Contains(paths(files), ".sops.yaml") {
		t.Error("a plaintext repository has a .sops.yaml")
	}

	c := loadFiles(t, files, scaffold.File{Path: scaffold.PlaintextBundle, Data: []byte("placeholder: x\n")})
	if c.Spec.Secrets != "secrets.PLAINTEXT.yaml" {
		t.Errorf("secrets: %s", c.Spec.Secrets)
	}

	if gi := string(files[len(files)-1].Data); !strings.Contains(gi, "\n/secrets.PLAINTEXT.yaml\n") {
		t.Errorf(".gitignore does not ignore the plaintext bundle:\n%s", gi)
	}
}

func TestFiles_RefusesWhatCannotBeACluster(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name string
		edit func(*scaffold.Spec)
		want string
	}{
		{"upper-case name", func(s *scaffold.Spec) { s.Name = "Lab" }, `cluster name "Lab" is not a DNS label (lower-case letters, digits and '-', at most 63)`},
		{"http endpoint", func(s *scaffold.Spec) { s.Endpoint = "http://10.0.0.1:6443" }, `endpoint "http://10.0.0.1:6443" is not https://HOST:PORT`},
		{"endpoint without port", func(s *scaffold.Spec) { s.Endpoint = "https://10.0.0.1" }, `endpoint "https://10.0.0.1" is not https://HOST:PORT`},
		{"endpoint with a path", func(s *scaffold.Spec) { s.Endpoint = "https://10.0.0.1:6443/api" }, `endpoint "https://10.0.0.1:6443/api" is not https://HOST:PORT`},
		{"no recipient", func(s *scaffold.Spec) { s.Recipients = nil }, "an encrypted bundle needs at least one age recipient"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			s := spec("age1placeholder")
			tc.edit(&s)

			if _, err := scaffold.Files(s); err == nil || err.Error() != tc.want {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestFiles_WorkerPlaceholderAvoidsTheEndpoint(t *testing.T) {
	t.Parallel()

	s := spec("age1placeholder")
	s.Endpoint = "https://192.0.2.11:6443"

	files, err := scaffold.Files(s)
	if err != nil {
		t.Fatal(err)
	}

	c := loadFiles(t, files, scaffold.File{Path: scaffold.EncryptedBundle, Data: []byte("placeholder: x\n")})
	if c.Spec.Nodes[0].Address == c.Spec.Nodes[1].Address {
		t.Errorf("both nodes at %s", c.Spec.Nodes[0].Address)
	}
}

func TestEncryptedBundleYAML_DecryptsToTheBundle(t *testing.T) {
	t.Parallel()

	id, _ := age.GenerateX25519Identity()
	b := newBundle(t)

	data, err := scaffold.EncryptedBundleYAML(b, []*age.X25519Recipient{id.Recipient()}, now, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}

	if bytes.Contains(data, []byte(b.Secrets.BootstrapToken)) || bytes.Contains(data, []byte(b.Cluster.Secret)) {
		t.Error("a secret is in clear in the encrypted bundle")
	}

	plain, err := sops.Decrypt(data, []age.Identity{id})
	if err != nil {
		t.Fatal(err)
	}

	want, err := scaffold.BundleYAML(b)
	if err != nil {
		t.Fatal(err)
	}

	var got, wantV any
	if err := yaml.Unmarshal(plain, &got); err != nil {
		t.Fatal(err)
	}

	if err := yaml.Unmarshal(want, &wantV); err != nil {
		t.Fatal(err)
	}

	if !reflect.DeepEqual(got, wantV) {
		t.Error("the decrypted bundle differs from the bundle")
	}
}

func TestPlaintextBundleYAML_SaysSoInItsHeader(t *testing.T) {
	t.Parallel()

	data, err := scaffold.PlaintextBundleYAML(newBundle(t), "lab")
	if err != nil {
		t.Fatal(err)
	}

	if !bytes.HasPrefix(data, []byte("# PLAINTEXT secrets bundle of the cluster lab")) {
		t.Errorf("header: %.80s", data)
	}
}

func labCluster(t *testing.T) *cluster.Cluster {
	t.Helper()

	files, err := scaffold.Files(spec("age1placeholder"))
	if err != nil {
		t.Fatal(err)
	}

	c := loadFiles(t, files, scaffold.File{Path: scaffold.EncryptedBundle, Data: []byte("placeholder: x\n")})
	c.Spec.Nodes = append(c.Spec.Nodes, cluster.Node{Name: "lab-cp2", Address: "10.0.20.102", Role: cluster.RoleControlPlane})

	return c
}

func TestTalosconfig_SignedByTheOSCAWithTheRole(t *testing.T) {
	t.Parallel()

	b := newBundle(t)

	for _, r := range scaffold.Roles {
		t.Run(r, func(t *testing.T) {
			t.Parallel()

			data, err := scaffold.Talosconfig(labCluster(t), b, scaffold.TalosconfigSpec{Role: r, TTL: time.Hour, Now: now})
			if err != nil {
				t.Fatal(err)
			}

			cfg, err := clientconfig.FromBytes(data)
			if err != nil {
				t.Fatal(err)
			}

			ctx := cfg.Contexts["lab"]
			if cfg.Context != "lab" || ctx == nil {
				t.Fatalf("context %q, contexts %v", cfg.Context, cfg.Contexts)
			}

			if !slices.Equal(ctx.Endpoints, []string{"10.0.20.100", "10.0.20.102"}) || !slices.Equal(ctx.Nodes, []string{"10.0.20.100", "192.0.2.11", "10.0.20.102"}) {
				t.Errorf("endpoints %v nodes %v", ctx.Endpoints, ctx.Nodes)
			}

			cert := clientCert(t, ctx.Crt)

			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(b.Certs.OS.Crt) {
				t.Fatal("bundle OS CA does not parse")
			}

			if _, err := cert.Verify(x509.VerifyOptions{Roots: pool, CurrentTime: now.Add(time.Minute), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
				t.Errorf("client certificate does not verify against the OS CA: %v", err)
			}

			if !slices.Equal(cert.Subject.Organization, []string{r}) {
				t.Errorf("roles %v, want [%s]", cert.Subject.Organization, r)
			}

			if !cert.NotAfter.Equal(now.Add(time.Hour)) {
				t.Errorf("not after %s, want %s", cert.NotAfter, now.Add(time.Hour))
			}

			if caPEM, _ := base64.StdEncoding.DecodeString(ctx.CA); !bytes.Equal(caPEM, b.Certs.OS.Crt) {
				t.Error("the talosconfig's CA is not the bundle's OS CA")
			}
		})
	}
}

func clientCert(t *testing.T, b64 string) *x509.Certificate {
	t.Helper()

	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}

	block, _ := pem.Decode(raw)
	if block == nil {
		t.Fatal("client certificate is not PEM")
	}

	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}

	return cert
}

func TestTalosconfig_Refusals(t *testing.T) {
	t.Parallel()

	b := newBundle(t)

	noCP := labCluster(t)
	noCP.Spec.Nodes = []cluster.Node{{Name: "w", Address: "10.0.0.9", Role: cluster.RoleWorker}}

	for _, tc := range []struct {
		name string
		c    *cluster.Cluster
		s    scaffold.TalosconfigSpec
		want string
	}{
		{"unknown role", labCluster(t), scaffold.TalosconfigSpec{Role: "os:root", TTL: time.Hour}, `role "os:root" is not one of os:admin, os:operator, os:reader`},
		{"no lifetime", labCluster(t), scaffold.TalosconfigSpec{Role: "os:admin"}, "the certificate's lifetime must be positive, got 0s"},
		{"no control plane", noCP, scaffold.TalosconfigSpec{Role: "os:admin", TTL: time.Hour}, "talops.yaml has no control plane to name as an endpoint"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			if _, err := scaffold.Talosconfig(tc.c, b, tc.s); err == nil || err.Error() != tc.want {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}
