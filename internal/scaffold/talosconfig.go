package scaffold

import (
	"fmt"
	"slices"
	"strings"
	"time"

	clientconfig "github.com/siderolabs/talos/pkg/machinery/client/config"
	gensecrets "github.com/siderolabs/talos/pkg/machinery/config/generate/secrets"
	"github.com/siderolabs/talos/pkg/machinery/role"

	"github.com/talops/talops/internal/cluster"
)

// Roles a talosconfig may be issued for.
var Roles = []string{string(role.Admin), string(role.Operator), string(role.Reader)}

// DefaultTTL is how long a talosconfig's client certificate is valid by default.
const DefaultTTL = 365 * 24 * time.Hour

// TalosconfigSpec is what a talosconfig is made for.
type TalosconfigSpec struct {
	// Role is one of Roles.
	Role string
	// TTL is the client certificate's validity, from Now.
	TTL time.Duration
	Now time.Time
}

// Talosconfig returns a talosconfig for the cluster whose client certificate is signed by
// the bundle's OS CA with the role, as generate.Input.Talosconfig makes it: one context
// named after the cluster, the control planes' addresses as endpoints, every node as nodes.
func Talosconfig(c *cluster.Cluster, b *gensecrets.Bundle, s TalosconfigSpec) ([]byte, error) {
	if !slices.Contains(Roles, s.Role) {
		return nil, fmt.Errorf("role %q is not one of %s", s.Role, strings.Join(Roles, ", "))
	}

	if s.TTL <= 0 {
		return nil, fmt.Errorf("the certificate's lifetime must be positive, got %s", s.TTL)
	}

	if b == nil || b.Certs == nil || b.Certs.OS == nil {
		return nil, fmt.Errorf("the secrets bundle has no OS CA (certs.os)")
	}

	var endpoints, nodes []string

	for _, n := range c.Spec.Nodes {
		if n.Role == cluster.RoleControlPlane {
			endpoints = append(endpoints, n.Address)
		}

		nodes = append(nodes, n.Address)
	}

	if len(endpoints) == 0 {
		return nil, fmt.Errorf("talops.yaml has no control plane to name as an endpoint")
	}

	cert, err := gensecrets.NewAdminCertificateAndKey(s.Now, b.Certs.OS, role.MakeSet(role.Role(s.Role)), s.TTL)
	if err != nil {
		// Errors of the CA parse name no key material.
		return nil, fmt.Errorf("sign the client certificate with the OS CA: %w", err)
	}

	cfg := clientconfig.NewConfig(c.Spec.Cluster.Name, endpoints, b.Certs.OS.Crt, cert)
	cfg.Contexts[c.Spec.Cluster.Name].Nodes = nodes

	data, err := cfg.Bytes()
	if err != nil {
		return nil, fmt.Errorf("encode the talosconfig")
	}

	return data, nil
}
