//go:build realtalos

package realtalos

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/generate"
	"github.com/siderolabs/talos/pkg/machinery/config/generate/secrets"
	"github.com/siderolabs/talos/pkg/machinery/role"
	"go.yaml.in/yaml/v4"
)

// The release the harness builds, and a Kubernetes it supports.
const (
	talosVersion      = "v1.14.1"
	kubernetesVersion = "v1.36.4"
)

// lab is a talops repository of one control plane, the real node it describes, and
// talosconfigs for it.
type lab struct {
	dir string
	// node is the control plane's name in talops.yaml.
	node    string
	address string
	// admin and reader are talosconfigs with the os:admin and os:reader roles.
	admin, reader string
	// booted is the config the node booted from.
	booted []byte
}

// newLab writes a repository whose control plane listens on address, with a fresh
// secrets bundle (plaintext: it is made for this test only and deleted with it).
func newLab(t *testing.T, address string) *lab {
	t.Helper()

	return newLabOf(t, address, kubernetesVersion, nil)
}

// newLabOf writes the repository of newLab with the Kubernetes version and more patches
// for all its nodes (paths under the repository, written by the caller).
func newLabOf(t *testing.T, address, kubernetes string, patches []string) *lab {
	t.Helper()

	l := &lab{dir: t.TempDir(), node: "cp1", address: address}

	bundle, err := secrets.NewBundle(secrets.NewFixedClock(time.Now()), config.TalosVersionCurrent)
	if err != nil {
		t.Fatal(err)
	}

	data, err := yaml.Marshal(bundle)
	if err != nil {
		t.Fatal(err)
	}

	l.write(t, "secrets.yaml", string(data))
	l.write(t, "talops.yaml", `cluster:
  name: e2e
  endpoint: https://`+address+`:6443
talosVersion: `+talosVersion+`
kubernetesVersion: `+kubernetes+`
secrets: secrets.yaml
platform: metal
patches:
  all: [`+strings.Join(append([]string{"patches/all.yaml"}, patches...), ", ")+`]
nodes:
  - name: cp1
    address: `+address+`
    role: controlplane
    installDisk: /dev/sda
    patches: [nodes/cp1.yaml]
`)
	// The node's API certificate must name the address talops dials.
	l.write(t, "patches/all.yaml", "machine:\n  certSANs: ["+address+"]\n")
	l.write(t, "nodes/cp1.yaml", "machine:\n  sysctls:\n    net.ipv4.tcp_fin_timeout: \"45\"\n")

	l.admin = l.talosconfig(t, bundle, role.MakeSet(role.Admin), "talosconfig")
	l.reader = l.talosconfig(t, bundle, role.MakeSet(role.Reader), "talosconfig-reader")

	return l
}

func (l *lab) write(t *testing.T, name, content string) {
	t.Helper()

	path := filepath.Join(l.dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}

	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// talosconfig writes a talosconfig of the cluster's CA with a client certificate of
// roles. It names no endpoints: talops dials each node's address.
func (l *lab) talosconfig(t *testing.T, bundle *secrets.Bundle, roles role.Set, name string) string {
	t.Helper()

	in, err := generate.NewInput("e2e", "https://"+l.address+":6443", strings.TrimPrefix(kubernetesVersion, "v"),
		generate.WithSecretsBundle(bundle), generate.WithRoles(roles))
	if err != nil {
		t.Fatal(err)
	}

	cfg, err := in.Talosconfig()
	if err != nil {
		t.Fatal(err)
	}

	for _, c := range cfg.Contexts {
		c.Endpoints = nil
	}

	data, err := cfg.Bytes()
	if err != nil {
		t.Fatal(err)
	}

	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}

	return path
}

// rendered is the node's config as talops renders it.
func (l *lab) rendered(t *testing.T) []byte {
	t.Helper()

	out := filepath.Join(t.TempDir(), "out")

	if r := talopsRun(t, nil, "render", "--dir", l.dir, "--out", out); r.code != 0 {
		t.Fatalf("render: exit %d: %s", r.code, r.stderr)
	}

	data, err := os.ReadFile(filepath.Join(out, l.node+".yaml"))
	if err != nil {
		t.Fatal(err)
	}

	return data
}

// boot starts the real node from talops' render; with etcd, bootstraps its etcd too.
func (l *lab) boot(t *testing.T, etcd bool) node {
	t.Helper()

	l.booted = l.rendered(t)

	n := startNode(t, nodeName(t), l.address, l.booted)
	if etcd {
		n.bootstrapEtcd(t, l.admin)
	}

	return n
}

// nodeName names a test's node after the test, as the harness allows ([a-z0-9-], 31).
func nodeName(t *testing.T) string {
	name := strings.ToLower(t.Name())
	name = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}

		return '-'
	}, strings.TrimPrefix(name, "test"))

	if len(name) > 28 {
		name = name[len(name)-28:]
	}

	return "e2-" + strings.Trim(name, "-")
}

// talops runs talops on the lab with the admin talosconfig.
func (l *lab) talops(t *testing.T, args ...string) result {
	t.Helper()

	return talopsRun(t, nil, append(args, "--dir", l.dir)...)
}
