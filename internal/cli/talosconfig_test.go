package cli_test

import (
	"bytes"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"filippo.io/age"
	clientconfig "github.com/siderolabs/talos/pkg/machinery/client/config"
	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/secrets/sops"
)

// initLab writes a new repository and returns its directory, the identity that opens its
// bundle and that identity's key file.
func initLab(t *testing.T, h *diskHarness) (string, *age.X25519Identity, string) {
	t.Helper()

	id, keyFile := ageKey(t)
	dir := filepath.Join(t.TempDir(), "lab")

	if err := h.run("init", "--dir", dir, "--name", "lab", "--endpoint", "https://10.0.20.100:6443", "--age-recipient", id.Recipient().String()); err != nil {
		t.Fatalf("init: %v\n%s", err, h.stderr.String())
	}

	return dir, id, keyFile
}

// osCA is the bundle's OS CA certificate.
func osCA(t *testing.T, dir string, id age.Identity) []byte {
	t.Helper()

	plain, err := sops.Decrypt(readFile(t, filepath.Join(dir, "secrets.sops.yaml")), []age.Identity{id})
	if err != nil {
		t.Fatal(err)
	}

	var b struct {
		Certs struct {
			OS struct {
				Crt string `yaml:"crt"`
			} `yaml:"os"`
		} `yaml:"certs"`
	}
	if err := yaml.Unmarshal(plain, &b); err != nil {
		t.Fatal(err)
	}

	crt, err := base64.StdEncoding.DecodeString(b.Certs.OS.Crt)
	if err != nil {
		t.Fatal(err)
	}

	return crt
}

func parseClientCert(t *testing.T, ctx *clientconfig.Context) (*x509.Certificate, string) {
	t.Helper()

	raw, err := base64.StdEncoding.DecodeString(ctx.Crt)
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

	key, err := base64.StdEncoding.DecodeString(ctx.Key)
	if err != nil {
		t.Fatal(err)
	}

	return cert, string(key)
}

func TestTalosconfig_SignedByTheBundlesOSCAWithTheRole(t *testing.T) {
	t.Parallel()

	h := newDiskHarness(t)
	dir, id, keyFile := initLab(t, h)
	h.env["SOPS_AGE_KEY_FILE"] = keyFile
	out := filepath.Join(t.TempDir(), "talosconfig")

	if err := h.run("talosconfig", "--dir", dir, "--out", out, "--role", "os:operator", "--ttl", "48h"); err != nil {
		t.Fatalf("talosconfig: %v\n%s", err, h.stderr.String())
	}

	if got, want := h.stdout.String(), "wrote "+out+" (os:operator, valid for 48h0m0s)\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}

	st, err := os.Stat(out)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("talosconfig mode %v (%v), want 0600", st.Mode().Perm(), err)
	}

	cfg, err := clientconfig.FromBytes(readFile(t, out))
	if err != nil {
		t.Fatal(err)
	}

	ctx := cfg.Contexts["lab"]
	if cfg.Context != "lab" || ctx == nil {
		t.Fatalf("context %q of %v, want lab", cfg.Context, cfg.Contexts)
	}

	if !slices.Equal(ctx.Endpoints, []string{"10.0.20.100"}) || !slices.Equal(ctx.Nodes, []string{"10.0.20.100", "192.0.2.11"}) {
		t.Errorf("endpoints %v, nodes %v", ctx.Endpoints, ctx.Nodes)
	}

	cert, key := parseClientCert(t, ctx)

	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(osCA(t, dir, id)) {
		t.Fatal("the OS CA does not parse")
	}

	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, CurrentTime: now.Add(time.Hour), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("the client certificate does not verify against the bundle's OS CA: %v", err)
	}

	if !slices.Equal(cert.Subject.Organization, []string{"os:operator"}) || !cert.NotAfter.Equal(now.Add(48*time.Hour)) {
		t.Errorf("roles %v, not after %s", cert.Subject.Organization, cert.NotAfter)
	}

	for _, s := range []string{key, ctx.Key} {
		if strings.Contains(h.stdout.String()+h.stderr.String(), s) {
			t.Error("the client key is in stdout or stderr")
		}
	}

	if err := h.run("talosconfig", "--dir", dir, "--out", out); cli.ExitCode(err) != cli.ExitFailure ||
		h.stderr.String() != "talops: "+out+" exists: talops does not overwrite it (move it away or pick another path)\n" {
		t.Errorf("a second talosconfig to the same file: %v, stderr %q", err, h.stderr.String())
	}
}

func TestTalosconfig_RefusesAThrowawayBundle(t *testing.T) {
	t.Parallel()

	h := newDiskHarness(t)
	dir, _, _ := initLab(t, h)
	out := filepath.Join(t.TempDir(), "talosconfig")

	err := h.run("talosconfig", "--dir", dir, "--out", out)
	if cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit code %d, want 1", cli.ExitCode(err))
	}

	want := "talops: talosconfig needs the cluster's real secrets bundle, and only a throwaway one is available (" +
		filepath.Join(dir, "secrets.sops.yaml") + " is SOPS-encrypted and no age key is set (SOPS_AGE_KEY or SOPS_AGE_KEY_FILE))\n"
	if h.stderr.String() != want {
		t.Errorf("stderr\n%q\nwant\n%q", h.stderr.String(), want)
	}

	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("a talosconfig was written from a throwaway bundle")
	}
}

func TestTalosconfig_ToStdoutOnlyOutsideAnAction(t *testing.T) {
	t.Parallel()

	h := newDiskHarness(t)
	dir, _, keyFile := initLab(t, h)
	h.env["SOPS_AGE_KEY_FILE"] = keyFile

	if err := h.run("talosconfig", "--dir", dir, "--out", "-"); err != nil {
		t.Fatalf("talosconfig --out -: %v\n%s", err, h.stderr.String())
	}

	if _, err := clientconfig.FromBytes(h.stdout.Bytes()); err != nil || !bytes.Contains(h.stdout.Bytes(), []byte("context: lab")) {
		t.Errorf("stdout is not the talosconfig (%v)", err)
	}

	h.env["GITHUB_ACTIONS"] = "true"

	err := h.run("talosconfig", "--dir", dir, "--out", "-")
	if cli.ExitCode(err) != cli.ExitFailure || h.stdout.Len() != 0 ||
		h.stderr.String() != "talops: --out - is refused in GitHub Actions: a talosconfig on stdout would end up in the job log\n" {
		t.Errorf("in an action: %v, stdout %d bytes, stderr %q", err, h.stdout.Len(), h.stderr.String())
	}
}
