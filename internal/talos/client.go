package talos

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"

	"github.com/cosi-project/runtime/pkg/safe"
	"github.com/siderolabs/talos/pkg/machinery/api/machine"
	"github.com/siderolabs/talos/pkg/machinery/client"
	clientconfig "github.com/siderolabs/talos/pkg/machinery/client/config"
	"github.com/siderolabs/talos/pkg/machinery/constants"
	"github.com/siderolabs/talos/pkg/machinery/resources/config"
	"github.com/siderolabs/talos/pkg/machinery/resources/runtime"
	"github.com/siderolabs/talos/pkg/machinery/role"
)

// SchematicExtension is the extension whose version is the schematic ID of the image.
const SchematicExtension = "schematic"

// Options configure the client dialer.
type Options struct {
	// Talosconfig holds the CA, the client certificate and its key.
	Talosconfig *clientconfig.Config
	// Context names the talosconfig context ("" for its current context).
	Context string
	// Endpoint maps a node address to the endpoint dialled when the context names no
	// endpoints (nil: the address itself, on the Talos API port).
	Endpoint func(address string) string
}

// RequiredRole is the Talos role talops' client certificate needs: Talos serves the running
// machine config (a sensitive resource), Read (the boot ID), ApplyConfiguration and
// LifecycleService.Upgrade to os:admin only.
const RequiredRole = role.Admin

// requireRole refuses a client certificate without want before any call is made, so that
// an apply never stops halfway on a permission error. The certificate is public; only its
// roles are named.
func requireRole(context, crt string, want role.Role) error {
	der, err := base64.StdEncoding.DecodeString(crt)
	if err != nil {
		return fmt.Errorf("talosconfig context %q: crt is not base64", context)
	}

	block, _ := pem.Decode(der)
	if block == nil {
		return fmt.Errorf("talosconfig context %q: crt is not a PEM certificate", context)
	}

	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return fmt.Errorf("talosconfig context %q: crt is not an X.509 certificate", context)
	}

	roles, _ := role.Parse(cert.Subject.Organization)
	if roles.Includes(want) {
		return nil
	}

	has := strings.Join(roles.Strings(), ", ")
	if has == "" {
		has = "no Talos role"
	}

	return &RoleError{Context: context, Has: has, Want: want}
}

// RoleError says the talosconfig's client certificate lacks the role talops needs.
type RoleError struct {
	Context string
	Has     string
	Want    role.Role
}

func (e *RoleError) Error() string {
	return fmt.Sprintf("talosconfig context %q has a client certificate with %s: talops needs %s to read running configs and apply them (talosctl config new --roles %s)", e.Context, e.Has, e.Want, e.Want)
}

// ClientDialer dials nodes with machinery's client.
type ClientDialer struct {
	ctx      *clientconfig.Context
	endpoint func(string) string
}

// NewDialer checks the talosconfig context and returns a dialer over mTLS with it.
// Error messages name the context and the missing field, never a value.
func NewDialer(o Options) (*ClientDialer, error) {
	if o.Talosconfig == nil {
		return nil, errors.New("no talosconfig")
	}

	name := o.Context
	if name == "" {
		name = o.Talosconfig.Context
	}

	c, ok := o.Talosconfig.Contexts[name]
	switch {
	case name == "":
		return nil, errors.New("talosconfig has no current context")
	case !ok || c == nil:
		return nil, fmt.Errorf("talosconfig has no context %q", name)
	case c.CA == "":
		return nil, fmt.Errorf("talosconfig context %q has no ca: talops only speaks mTLS to nodes", name)
	case c.Crt == "" || c.Key == "":
		return nil, fmt.Errorf("talosconfig context %q has no client certificate (crt and key): talops only speaks mTLS to nodes", name)
	}

	if err := requireRole(name, c.Crt, RequiredRole); err != nil {
		return nil, err
	}

	endpoint := o.Endpoint
	if endpoint == nil {
		endpoint = func(address string) string { return net.JoinHostPort(address, strconv.Itoa(constants.ApidPort)) }
	}

	return &ClientDialer{ctx: c, endpoint: endpoint}, nil
}

// Dial opens a client for the node at address: straight to it, or through the context's
// endpoints (Talos proxies the calls to the node) when the context names some.
func (d *ClientDialer) Dial(ctx context.Context, address string) (Node, error) {
	c := *d.ctx
	c.Nodes = nil

	opts := []client.OptionFunc{client.WithConfigContext(&c)}

	proxied := len(c.Endpoints) > 0
	if !proxied {
		opts = append(opts, client.WithEndpoints(d.endpoint(address)))
	} else {
		opts = append(opts, client.WithGRPCDialOptions(nodeErrors(address, strings.Join(c.Endpoints, ", "))...))
	}

	cl, err := client.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("talos client: %w", err)
	}

	n := &clientNode{c: cl}
	if proxied {
		n.node = address
	}

	return n, nil
}

type clientNode struct {
	c *client.Client
	// node is set when calls go through an endpoint that proxies them to the node.
	node string
}

func (n *clientNode) with(ctx context.Context) context.Context {
	if n.node == "" {
		return ctx
	}

	return client.WithNode(ctx, n.node)
}

func (n *clientNode) Version(ctx context.Context) (string, error) {
	resp, err := n.c.Version(n.with(ctx))
	if err != nil {
		return "", err
	}

	for _, m := range resp.GetMessages() {
		if tag := m.GetVersion().GetTag(); tag != "" {
			return tag, nil
		}
	}

	return "", errors.New("the node did not say its version")
}

func (n *clientNode) MachineConfig(ctx context.Context) ([]byte, error) {
	mc, err := safe.StateGetByID[*config.MachineConfig](n.with(ctx), n.c.COSI, config.ActiveID)
	if err != nil {
		return nil, err
	}

	if mc.Provider() == nil {
		return nil, errors.New("the node has no active machine config")
	}

	return mc.Provider().Bytes()
}

func (n *clientNode) SchematicID(ctx context.Context) (string, error) {
	list, err := safe.StateListAll[*runtime.ExtensionStatus](n.with(ctx), n.c.COSI)
	if err != nil {
		return "", err
	}

	for ext := range list.All() {
		if md := ext.TypedSpec().Metadata; md.Name == SchematicExtension {
			return md.Version, nil
		}
	}

	return "", nil
}

func (n *clientNode) Status(ctx context.Context) (Status, error) {
	ms, err := safe.StateGetByID[*runtime.MachineStatus](n.with(ctx), n.c.COSI, runtime.MachineStatusID)
	if err != nil {
		return Status{}, err
	}

	return machineStatus(ms), nil
}

func machineStatus(ms *runtime.MachineStatus) Status {
	spec := ms.TypedSpec()
	st := Status{Stage: spec.Stage.String(), Ready: spec.Status.Ready}

	for _, c := range spec.Status.UnmetConditions {
		st.Unmet = append(st.Unmet, Condition{Name: c.Name, Reason: c.Reason})
	}

	return st
}

// bootIDPath is read rather than the BootID resource, which older Talos releases lack.
const bootIDPath = "/proc/sys/kernel/random/boot_id"

func (n *clientNode) BootID(ctx context.Context) (string, error) {
	r, err := n.c.Read(n.with(ctx), bootIDPath)
	if err != nil {
		return "", err
	}
	defer r.Close() //nolint:errcheck // read-only

	data, err := io.ReadAll(io.LimitReader(r, 256))
	if err != nil {
		return "", err
	}

	return strings.TrimSpace(string(data)), nil
}

func (n *clientNode) Apply(ctx context.Context, config []byte, mode Mode, dryRun bool) (Applied, error) {
	req, err := request(config, mode, dryRun)
	if err != nil {
		return Applied{}, err
	}

	resp, err := n.c.ApplyConfiguration(n.with(ctx), req)
	if err != nil {
		return Applied{}, err
	}

	return applied(resp), nil
}

func applied(resp *machine.ApplyConfigurationResponse) Applied {
	var a Applied

	for _, m := range resp.GetMessages() {
		a.Mode = m.GetMode().String()
		a.Rebooting = m.GetMode() == machine.ApplyConfigurationRequest_REBOOT //nolint:staticcheck // nodes up to 1.13 answer with it
		a.Details = m.GetModeDetails()
		a.Warnings = append(a.Warnings, m.GetWarnings()...)
	}

	return a
}

func (n *clientNode) Reboot(ctx context.Context) error { return n.c.Reboot(n.with(ctx)) }

func (n *clientNode) Rollback(ctx context.Context) error { return n.c.Rollback(n.with(ctx)) }

func (n *clientNode) Close() error { return n.c.Close() }
