package cli_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"filippo.io/age"

	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/secrets"
	"github.com/talops/talops/internal/secrets/sops"
)

// diskHarness runs commands against real directories: init and talosconfig write files.
type diskHarness struct {
	deps           *cli.Deps
	stdout, stderr bytes.Buffer
	env            map[string]string
}

func newDiskHarness(t *testing.T) *diskHarness {
	t.Helper()

	h := &diskHarness{env: map[string]string{}}
	d := cli.OSDeps()
	d.Stdout, d.Stderr = &h.stdout, &h.stderr
	d.Getenv = func(k string) string { return h.env[k] }
	d.Now = func() time.Time { return time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC) }
	// No network: the release data covers the versions init picks.
	d.ImageFactory, d.Proxmox, d.HTTPClient = nil, nil, nil
	h.deps = d

	return h
}

func (h *diskHarness) run(args ...string) error {
	h.stdout.Reset()
	h.stderr.Reset()

	return cli.Run(context.Background(), h.deps, args)
}

// ageKey makes an identity and its key file, as age-keygen does.
func ageKey(t *testing.T) (*age.X25519Identity, string) {
	t.Helper()

	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}

	file := filepath.Join(t.TempDir(), "key.txt")
	if err := os.WriteFile(file, []byte("# test key\n"+id.String()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	return id, file
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()

	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}

	return data
}

// bundleValues decrypts the repository's bundle and returns its secret values.
func bundleValues(t *testing.T, dir, keyFile string) []string {
	t.Helper()

	l := &secrets.Loader{Getenv: func(k string) string {
		if k == "SOPS_AGE_KEY_FILE" {
			return keyFile
		}

		return ""
	}, ReadFile: os.ReadFile, Now: time.Now}

	d, err := cluster.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close() //nolint:errcheck // the test is done with it

	c, err := cluster.Load(dir, d)
	if err != nil {
		t.Fatal(err)
	}

	b, err := l.Load(c)
	if err != nil || b.Throwaway {
		t.Fatalf("load the bundle: %v (throwaway %v)", err, b != nil && b.Throwaway)
	}

	return b.Values()
}

func assertNoSecret(t *testing.T, where string, out string, values []string) {
	t.Helper()

	for _, v := range values {
		if strings.Contains(out, v) {
			t.Errorf("%s holds a secret value of the bundle", where)
		}
	}
}

func TestInit_NewRepositoryValidatesStrictAndDecrypts(t *testing.T) {
	t.Parallel()

	h := newDiskHarness(t)
	id, keyFile := ageKey(t)
	other, _ := ageKey(t)
	dir := filepath.Join(t.TempDir(), "lab")

	if err := h.run("init", "--dir", dir, "--name", "lab", "--endpoint", "https://10.0.20.100:6443",
		"--age-recipient", id.Recipient().String(), "--age-recipient", other.Recipient().String()); err != nil {
		t.Fatalf("init: %v\n%s", err, h.stderr.String())
	}

	want := strings.ReplaceAll(`wrote DIR/secrets.sops.yaml
wrote DIR/talops.yaml
wrote DIR/schematics/base.yaml
wrote DIR/patches/all.yaml
wrote DIR/nodes/lab-cp1.yaml
wrote DIR/nodes/lab-worker1.yaml
wrote DIR/.sops.yaml
wrote DIR/.gitignore
The secrets bundle is encrypted with SOPS to 2 age recipients; talops and sops decrypt it with SOPS_AGE_KEY_FILE.
Talos v1.14.7, Kubernetes v1.37.1.

Next:
  1. edit DIR/talops.yaml: the nodes' names, addresses and install disks (the lines marked EDIT)
  2. talops validate --dir DIR
  3. talops talosconfig --dir DIR --out DIR/talosconfig
`, "DIR", dir)
	if got := h.stdout.String(); got != want {
		t.Errorf("stdout\n%s\nwant\n%s", got, want)
	}

	if h.stderr.Len() != 0 {
		t.Errorf("stderr: %s", h.stderr.String())
	}

	values := bundleValues(t, dir, keyFile)
	if len(values) < 5 {
		t.Fatalf("the bundle has %d secret values", len(values))
	}

	initOut := h.stdout.String()
	assertNoSecret(t, "init's stdout", initOut, values)

	enc := readFile(t, filepath.Join(dir, "secrets.sops.yaml"))
	assertNoSecret(t, "the encrypted bundle", string(enc), values)

	if _, err := sops.Decrypt(enc, []age.Identity{other}); err != nil {
		t.Errorf("the second recipient cannot decrypt: %v", err)
	}

	stranger, _ := ageKey(t)
	if _, err := sops.Decrypt(enc, []age.Identity{stranger}); !errors.Is(err, sops.ErrNoMatchingKey) {
		t.Errorf("a stranger's key: %v, want ErrNoMatchingKey", err)
	}

	h.env["SOPS_AGE_KEY_FILE"] = keyFile

	if err := h.run("validate", "--dir", dir, "--strict"); err != nil {
		t.Fatalf("validate --strict of the new repository: %v\n%s%s", err, h.stdout.String(), h.stderr.String())
	}

	// The newest release is known from the release notes, not from the extension data: the
	// one note says so.
	got := h.stdout.String()
	if !strings.HasSuffix(got, "validate ok: 2 nodes checked, 0 errors, 0 warnings, 1 note\n") ||
		!strings.Contains(got, "info versions.release-data talosVersion: Talos v1.14.7 is not in this build's extension data") {
		t.Errorf("validate: %s", got)
	}
}

func TestInit_PlaintextBundleOnlyWhenAskedAndSaysSo(t *testing.T) {
	t.Parallel()

	h := newDiskHarness(t)
	dir := filepath.Join(t.TempDir(), "lab")

	if err := h.run("init", "--dir", dir, "--name", "lab", "--endpoint", "https://lab.example:6443",
		"--talos-version", "1.12.0", "--plaintext-secrets"); err != nil {
		t.Fatalf("init: %v\n%s", err, h.stderr.String())
	}

	bundle := filepath.Join(dir, "secrets.PLAINTEXT.yaml")

	if !bytes.HasPrefix(readFile(t, bundle), []byte("# PLAINTEXT secrets bundle of the cluster lab")) {
		t.Error("the plaintext bundle does not say so in its header")
	}

	if st, err := os.Stat(bundle); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("plaintext bundle mode %v (%v), want 0600", st.Mode().Perm(), err)
	}

	for _, absent := range []string{"secrets.sops.yaml", ".sops.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, absent)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s written with --plaintext-secrets", absent)
		}
	}

	if !strings.Contains(h.stdout.String(), "is PLAINTEXT") || !strings.Contains(h.stdout.String(), "Talos v1.12.0, Kubernetes v1.35.0.") {
		t.Errorf("stdout: %s", h.stdout.String())
	}

	if err := h.run("validate", "--dir", dir, "--strict"); err != nil {
		t.Fatalf("validate --strict: %v\n%s%s", err, h.stdout.String(), h.stderr.String())
	}
}

func TestInit_KeepsTheOtherFilesThatExist(t *testing.T) {
	t.Parallel()

	h := newDiskHarness(t)
	id, _ := ageKey(t)
	dir := t.TempDir()

	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("node_modules/\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	if err := h.run("init", "--dir", dir, "--name", "lab", "--endpoint", "https://10.0.20.100:6443", "--age-recipient", id.Recipient().String()); err != nil {
		t.Fatalf("init: %v\n%s", err, h.stderr.String())
	}

	if got := string(readFile(t, filepath.Join(dir, ".gitignore"))); got != "node_modules/\n" {
		t.Errorf(".gitignore changed: %q", got)
	}

	if !strings.Contains(h.stdout.String(), "kept "+filepath.Join(dir, ".gitignore")+" (it exists)\n") {
		t.Errorf("stdout does not say the .gitignore was kept:\n%s", h.stdout.String())
	}
}

func TestInit_RefusalsAreOneLineErrors(t *testing.T) {
	t.Parallel()

	id, _ := ageKey(t)
	r := id.Recipient().String()

	for _, tc := range []struct {
		name     string
		existing string // a file already in the directory
		args     []string
		want     string
	}{
		{"existing talops.yaml", "talops.yaml", []string{"--age-recipient", r}, "talops: DIR/talops.yaml exists: talops does not overwrite it (move it away or pick another path)\n"},
		{"existing bundle", "secrets.sops.yaml", []string{"--age-recipient", r}, "talops: DIR/secrets.sops.yaml exists: talops does not overwrite it (move it away or pick another path)\n"},
		{"existing plaintext bundle", "secrets.PLAINTEXT.yaml", []string{"--plaintext-secrets"}, "talops: DIR/secrets.PLAINTEXT.yaml exists: talops does not overwrite it (move it away or pick another path)\n"},
		{"a secret key as recipient", "", []string{"--age-recipient", r, "--age-recipient", id.String()}, "talops: --age-recipient: age recipient 2: this is an age secret key, not a recipient: give its public key (age1...)\n"},
		{"not a recipient", "", []string{"--age-recipient", "age1nope"}, "talops: --age-recipient: age recipient 1: not an age X25519 recipient (age1...)\n"},
		{"no recipient", "", nil, "talops: --age-recipient is required (the public key of age-keygen, age1...), or --plaintext-secrets\n"},
		{"recipient and plaintext", "", []string{"--age-recipient", r, "--plaintext-secrets"}, "talops: --plaintext-secrets and --age-recipient cannot be used together\n"},
		{"Kubernetes out of range", "", []string{"--age-recipient", r, "--talos-version", "v1.13.9", "--kubernetes-version", "v1.30.0"}, "talops: Kubernetes v1.30.0 is older than Talos v1.13.9 supports (1.31.0 to 1.36.x)\n"},
		{"not a Talos version", "", []string{"--age-recipient", r, "--talos-version", "latest"}, "talops: Talos version: \"latest\" is not a Talos version\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			h := newDiskHarness(t)
			dir := t.TempDir()

			if tc.existing != "" {
				if err := os.WriteFile(filepath.Join(dir, tc.existing), []byte("mine: true\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}

			args := append([]string{"init", "--dir", dir, "--name", "lab", "--endpoint", "https://10.0.20.100:6443"}, tc.args...)

			err := h.run(args...)
			if cli.ExitCode(err) != cli.ExitFailure {
				t.Fatalf("exit code %d, want 1", cli.ExitCode(err))
			}

			if got, want := h.stderr.String(), strings.ReplaceAll(tc.want, "DIR", dir); got != want {
				t.Errorf("stderr\n%q\nwant\n%q", got, want)
			}

			entries, _ := os.ReadDir(dir)
			if tc.existing == "" && len(entries) != 0 || tc.existing != "" && len(entries) != 1 {
				t.Errorf("the refused init wrote %d entries", len(entries))
			}

			if tc.existing != "" && string(readFile(t, filepath.Join(dir, tc.existing))) != "mine: true\n" {
				t.Errorf("%s was changed", tc.existing)
			}
		})
	}
}

func TestInit_MissingFlagsAreUsageErrors(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--name", "lab", "--endpoint", "https://a:6443"}, "talops: --dir is required\n"},
		{[]string{"--dir", "x", "--endpoint", "https://a:6443"}, "talops: --name is required\n"},
		{[]string{"--dir", "x", "--name", "lab"}, "talops: --endpoint is required\n"},
		{[]string{"--dir", "x", "--name", "Lab", "--endpoint", "https://a:6443", "--plaintext-secrets"}, "talops: cluster name \"Lab\" is not a DNS label (lower-case letters, digits and '-', at most 63)\n"},
		{[]string{"--dir", "x", "--name", "lab", "--endpoint", "10.0.0.1", "--plaintext-secrets"}, "talops: endpoint \"10.0.0.1\" is not https://HOST:PORT\n"},
	} {
		h := newDiskHarness(t)
		h.deps.MkdirAll = func(string, os.FileMode) error { t.Error("a refused init created a directory"); return nil }

		err := h.run(append([]string{"init"}, tc.args...)...)
		if cli.ExitCode(err) != cli.ExitFailure || h.stderr.String() != tc.want {
			t.Errorf("init %v: exit %d, stderr %q, want %q", tc.args, cli.ExitCode(err), h.stderr.String(), tc.want)
		}
	}
}

// Each node's kubelet registers its Node under the node's name: init writes a patch that
// sets the hostname in the format of the release's config contract, and the repository
// still validates strict; --no-hostnames leaves the hostname to Talos.
func TestInit_SetsEachNodesHostnameToItsNameUnlessToldNot(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name, talos string
		noHostnames bool
		want        []string
		notWant     string
	}{
		{"AHostnameConfigDocumentFromTalos112", "v1.13.9", false, []string{"kind: HostnameConfig\nauto: 'off'\nhostname: lab-worker1\n"}, ""},
		{"MachineNetworkHostnameBefore112", "v1.11.6", false, []string{"    network:\n        hostname: lab-worker1\n"}, "kind: HostnameConfig"},
		{"NoHostnamesWritesNone", "v1.13.9", true, nil, "lab-worker1"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			h := newDiskHarness(t)
			dir := filepath.Join(t.TempDir(), "lab")
			args := []string{"init", "--dir", dir, "--name", "lab", "--endpoint", "https://10.0.20.100:6443", "--talos-version", tt.talos, "--plaintext-secrets"}

			if tt.noHostnames {
				args = append(args, "--no-hostnames")
			}

			if err := h.run(args...); err != nil {
				t.Fatalf("init: %v\n%s", err, h.stderr.String())
			}

			if err := h.run("validate", "--dir", dir, "--strict"); err != nil {
				t.Fatalf("validate --strict: %v\n%s", err, h.stdout.String())
			}

			out := filepath.Join(t.TempDir(), "rendered")
			if err := h.run("render", "--dir", dir, "--out", out); err != nil {
				t.Fatalf("render: %v\n%s", err, h.stderr.String())
			}

			// The rendered config holds the bundle's secrets: it is never printed.
			rendered := string(readFile(t, filepath.Join(out, "lab-worker1.yaml")))
			for _, w := range tt.want {
				if !strings.Contains(rendered, w) {
					t.Errorf("the worker's rendered config does not hold %q", w)
				}
			}

			if tt.notWant != "" && strings.Contains(rendered, tt.notWant) {
				t.Errorf("the worker's rendered config holds %q", tt.notWant)
			}

			_, err := os.Stat(filepath.Join(dir, "nodes", "lab-worker1.yaml"))
			if written := err == nil; written == tt.noHostnames {
				t.Errorf("nodes/lab-worker1.yaml written: %t, with --no-hostnames %t", written, tt.noHostnames)
			}
		})
	}
}

// A version without its "v" is written as talops.yaml spells versions, for both flags.
func TestInit_VersionsWithoutVAreWrittenWithIt(t *testing.T) {
	t.Parallel()

	h := newDiskHarness(t)
	dir := filepath.Join(t.TempDir(), "lab")

	if err := h.run("init", "--dir", dir, "--name", "lab", "--endpoint", "https://10.0.20.100:6443",
		"--talos-version", "1.13.9", "--kubernetes-version", "1.35.2", "--plaintext-secrets"); err != nil {
		t.Fatalf("init: %v\n%s", err, h.stderr.String())
	}

	spec := string(readFile(t, filepath.Join(dir, "talops.yaml")))
	if !strings.Contains(spec, "\ntalosVersion: v1.13.9\n") || !strings.Contains(spec, "\nkubernetesVersion: v1.35.2\n") {
		t.Errorf("talops.yaml spells the versions otherwise:\n%s", spec)
	}

	if err := h.run("validate", "--dir", dir, "--strict"); err != nil {
		t.Errorf("validate: %v\n%s", err, h.stdout.String())
	}
}
