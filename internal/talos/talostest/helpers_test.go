package talostest_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/siderolabs/talos/pkg/machinery/client"
	"github.com/siderolabs/talos/pkg/machinery/role"

	"github.com/talops/talops/internal/talos/talostest"
)

// baseConfig is the least config machined's validation takes (it wants a CA).
const baseConfig = `version: v1alpha1
machine:
  type: worker
  token: fake-machine-token
  ca:
    crt: ZmFrZQ==
cluster:
  clusterName: fake
`

// withMachine adds lines under machine: to baseConfig.
func withMachine(lines string) []byte {
	return []byte(strings.Replace(baseConfig, "machine:\n", "machine:\n"+lines, 1))
}

var (
	// sysctlChange is live on every release (.machine.sysctls).
	sysctlChange = withMachine("  sysctls:\n    net.ipv4.ip_forward: \"1\"\n")
	// envChange needs a reboot up to 1.13 (.machine.env is not among the live fields).
	envChange = withMachine("  env:\n    HTTP_PROXY: http://proxy:3128\n")
)

// started starts a node and dials it with a certificate of these roles (os:admin when none).
func started(t *testing.T, n talostest.Node, roles ...role.Role) (*talostest.Server, *client.Client) {
	t.Helper()

	if n.Name == "" {
		n.Name = "fake"
	}

	if n.Config == nil {
		n.Config = []byte(baseConfig)
	}

	if len(roles) == 0 {
		roles = []role.Role{role.Admin}
	}

	ca := talostest.NewCA(t)
	s := talostest.Start(t, ca, n)

	return s, dial(t, ca, ca.ClientCertRole(t, roles...), s.Addr)
}

func dial(t *testing.T, ca *talostest.CA, kp talostest.KeyPair, addr string) *client.Client {
	t.Helper()

	cfg := talostest.Talosconfig(t, "fake", ca.PEM, kp)

	c, err := client.New(context.Background(), client.WithConfigContext(cfg.Contexts["fake"]), client.WithEndpoints(addr))
	if err != nil {
		t.Fatal(err)
	}

	t.Cleanup(func() { c.Close() }) //nolint:errcheck // the test is done with it

	return c
}

// bootID reads the node's boot ID, "" when the node does not answer.
func bootID(ctx context.Context, c *client.Client) (string, error) {
	r, err := c.Read(ctx, "/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "", err
	}
	defer r.Close() //nolint:errcheck // the test is done with it

	b, err := io.ReadAll(r)

	return strings.TrimSpace(string(b)), err
}
