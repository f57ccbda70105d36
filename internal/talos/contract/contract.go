// Package contract is what talops relies on a Talos node to do, as one table of scenarios
// run against two servers: the fake node of talostest (in every go test) and a real Talos
// v1.14.1 node of the realtalos harness (in the realtalos tests). Where both pass, the fake
// answers as the real node does.
package contract

import (
	"bytes"
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cosi-project/runtime/pkg/safe"
	"github.com/siderolabs/talos/pkg/machinery/api/machine"
	"github.com/siderolabs/talos/pkg/machinery/client"
	clientconfig "github.com/siderolabs/talos/pkg/machinery/client/config"
	"github.com/siderolabs/talos/pkg/machinery/config/configloader"
	"github.com/siderolabs/talos/pkg/machinery/config/configpatcher"
	"github.com/siderolabs/talos/pkg/machinery/config/encoder"
	"github.com/siderolabs/talos/pkg/machinery/resources/config"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/talops/talops/internal/talos"
)

// Target is a running Talos v1.14 control plane in container mode, configured, with etcd
// bootstrapped.
type Target struct {
	// Endpoint is host:port of its Talos API.
	Endpoint string
	// Admin and Reader are talosconfigs of its CA with os:admin and os:reader certificates,
	// naming no endpoints.
	Admin, Reader *clientconfig.Config
	// Config is the machine config it runs; Version the Talos version it answers with.
	Config  []byte
	Version string
}

// Run runs every scenario against the target, in order: the later ones change what the
// node has staged (never what it runs).
func Run(t *testing.T, tg Target) {
	t.Helper()

	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()

			sc.run(ctx, t, tg)
		})
	}
}

var scenarios = []struct {
	name string
	run  func(context.Context, *testing.T, Target)
}{
	{"AdminReadsVersionConfigStatusAndBootID", readsTheNode},
	{"DryRunOfTheRunningConfigSaysNoChanges", dryRunNoChanges},
	{"DryRunOfAChangeSaysItsDiffAndChangesNothing", dryRunChange},
	{"StagedIsStagedAndNotRunning", staged},
	{"ConfigWithoutV1Alpha1IsInvalidArgument", noV1Alpha1},
	{"BytesThatAreNoConfigAreInvalidArgument", notAConfig},
	{"RebootModeIsUnimplemented", rebootMode},
	{"ReaderGetsVersionButNotTheConfigNorApply", reader},
	{"ContainerModeRefusesReboots", containerReboot},
	{"EtcdListsItselfAloneAndHealthy", etcd},
	{"ItsEtcdMemberAndDiscoveryMemberGoByItsHostname", hostname},
}

// node is talops' own adapter for the target, with the admin certificate.
func node(ctx context.Context, t *testing.T, tg Target) talos.Node {
	t.Helper()

	d, err := talos.NewDialer(talos.Options{Talosconfig: tg.Admin, Endpoint: func(string) string { return tg.Endpoint }})
	if err != nil {
		t.Fatal(err)
	}

	n, err := d.Dial(ctx, "node")
	if err != nil {
		t.Fatal(err)
	}

	t.Cleanup(func() { n.Close() }) //nolint:errcheck // the test is done with it

	return n
}

// raw is machinery's client for the target with cfg's certificate, for the calls talops'
// adapter never makes (it never sends the REBOOT mode, for one).
func raw(ctx context.Context, t *testing.T, tg Target, cfg *clientconfig.Config) *client.Client {
	t.Helper()

	c, err := client.New(ctx, client.WithConfig(cfg), client.WithEndpoints(tg.Endpoint))
	if err != nil {
		t.Fatal(err)
	}

	t.Cleanup(func() { c.Close() }) //nolint:errcheck // the test is done with it

	return c
}

func readsTheNode(ctx context.Context, t *testing.T, tg Target) {
	n := node(ctx, t, tg)

	if v, err := n.Version(ctx); err != nil || v != tg.Version {
		t.Errorf("Version: %q, %v; want %s", v, err, tg.Version)
	}

	running, err := n.MachineConfig(ctx)
	if err != nil || !same(t, running, tg.Config) {
		t.Errorf("MachineConfig: %v; the node does not answer with the config it runs", err)
	}

	st, err := n.Status(ctx)
	if err != nil || (st.Stage != "running" && st.Stage != "booting") {
		t.Errorf("Status: %+v, %v; want the stage running or booting", st, err)
	}

	a, errA := n.BootID(ctx)
	b, errB := n.BootID(ctx)

	if errA != nil || errB != nil || a == "" || a != b {
		t.Errorf("BootID: %q, %q (%v, %v); want one stable ID", a, b, errA, errB)
	}
}

func dryRunNoChanges(ctx context.Context, t *testing.T, tg Target) {
	a, err := node(ctx, t, tg).Apply(ctx, tg.Config, talos.ModeAuto, true)
	if err != nil {
		t.Fatalf("dry run: %v", err)
	}

	if a.Mode != "NO_REBOOT" || a.Rebooting || !strings.HasPrefix(a.Details, "Dry run summary:\nApplied configuration without a reboot (skipped in dry-run).") || !strings.Contains(a.Details, "No changes.") {
		t.Errorf("dry run of the running config: %+v", a)
	}
}

func dryRunChange(ctx context.Context, t *testing.T, tg Target) {
	n := node(ctx, t, tg)

	a, err := n.Apply(ctx, changed(t, tg.Config), talos.ModeAuto, true)
	if err != nil {
		t.Fatalf("dry run: %v", err)
	}

	if a.Mode != "NO_REBOOT" || strings.Contains(a.Details, "No changes.") || !strings.Contains(a.Details, "Config diff:") {
		t.Errorf("dry run of a change: %+v", a)
	}

	stillRuns(ctx, t, n, tg)
}

func staged(ctx context.Context, t *testing.T, tg Target) {
	n := node(ctx, t, tg)

	a, err := n.Apply(ctx, changed(t, tg.Config), talos.ModeStaged, false)
	if err != nil {
		t.Fatalf("staged: %v", err)
	}

	if a.Mode != "STAGED" || a.Rebooting || a.Details != "Staged configuration to be applied after the next reboot" {
		t.Errorf("staged: %+v", a)
	}

	stillRuns(ctx, t, n, tg)
}

func noV1Alpha1(ctx context.Context, t *testing.T, tg Target) {
	doc := []byte("apiVersion: v1alpha1\nkind: HostnameConfig\nhostname: lone\n")

	_, err := raw(ctx, t, tg, tg.Admin).ApplyConfiguration(ctx, &machine.ApplyConfigurationRequest{Data: doc, Mode: machine.ApplyConfigurationRequest_NO_REBOOT})
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "doesn't contain v1alpha1 config") {
		t.Errorf("a config without v1alpha1: %v; want InvalidArgument, doesn't contain v1alpha1 config", err)
	}
}

func notAConfig(ctx context.Context, t *testing.T, tg Target) {
	_, err := raw(ctx, t, tg, tg.Admin).ApplyConfiguration(ctx, &machine.ApplyConfigurationRequest{Data: []byte("machine: [not a config"), Mode: machine.ApplyConfigurationRequest_NO_REBOOT})
	if status.Code(err) != codes.InvalidArgument {
		t.Errorf("bytes that are no config: %v; want InvalidArgument", err)
	}
}

func rebootMode(ctx context.Context, t *testing.T, tg Target) {
	//nolint:staticcheck // the removed mode is what is tested
	_, err := raw(ctx, t, tg, tg.Admin).ApplyConfiguration(ctx, &machine.ApplyConfigurationRequest{Data: tg.Config, Mode: machine.ApplyConfigurationRequest_REBOOT})
	if status.Code(err) != codes.Unimplemented || !strings.Contains(err.Error(), "the REBOOT mode is not supported") {
		t.Errorf("the REBOOT mode: %v; want Unimplemented", err)
	}
}

func reader(ctx context.Context, t *testing.T, tg Target) {
	c := raw(ctx, t, tg, tg.Reader)

	if _, err := c.Version(ctx); err != nil {
		t.Errorf("os:reader Version: %v", err)
	}

	if _, err := safe.StateGetByID[*config.MachineConfig](ctx, c.COSI, config.ActiveID); status.Code(err) != codes.PermissionDenied {
		t.Errorf("os:reader MachineConfig: %v; want PermissionDenied", err)
	}

	if _, err := c.ApplyConfiguration(ctx, &machine.ApplyConfigurationRequest{Data: tg.Config, Mode: machine.ApplyConfigurationRequest_NO_REBOOT, DryRun: true}); status.Code(err) != codes.PermissionDenied {
		t.Errorf("os:reader ApplyConfiguration: %v; want PermissionDenied", err)
	}

	r, err := c.Read(ctx, "/proc/sys/kernel/random/boot_id")
	if err == nil {
		_, err = io.ReadAll(r)
		r.Close() //nolint:errcheck // the test is done with it
	}

	if err == nil || !strings.Contains(err.Error(), "PermissionDenied") && status.Code(err) != codes.PermissionDenied {
		t.Errorf("os:reader Read: %v; want PermissionDenied", err)
	}
}

func containerReboot(ctx context.Context, t *testing.T, tg Target) {
	err := node(ctx, t, tg).Reboot(ctx)
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "method is not supported in container mode") {
		t.Errorf("Reboot of a container-mode node: %v; want FailedPrecondition", err)
	}
}

func etcd(ctx context.Context, t *testing.T, tg Target) {
	n := node(ctx, t, tg)

	members, err := n.EtcdMembers(ctx)
	if err != nil || len(members) != 1 || members[0].Learner {
		t.Errorf("EtcdMembers: %+v, %v; want one voting member", members, err)
	}

	if errs, err := n.EtcdErrors(ctx); err != nil || len(errs) != 0 {
		t.Errorf("EtcdErrors: %v, %v", errs, err)
	}
}

// hostname: the node reports its hostname and the name its kubelet registers as, and etcd (and Talos' discovery, when enabled)
// list it under that name (what tells it apart from a node talops.yaml does not name).
func hostname(ctx context.Context, t *testing.T, tg Target) {
	n := node(ctx, t, tg)

	names, err := n.Hostnames(ctx)
	if err != nil || len(names) == 0 || names[0] == "" {
		t.Fatalf("Hostnames: %q, %v", names, err)
	}

	members, err := n.EtcdMembers(ctx)
	if err != nil || len(members) != 1 || members[0].Hostname != names[0] {
		t.Errorf("etcd members %+v (%v), want one named %s", members, err, names[0])
	}

	// The kubelet registers under the hostname, or the FQDN when told to.
	if kn, err := n.KubeNodename(ctx); err != nil || !slices.Contains(names, kn) {
		t.Errorf("KubeNodename: %q (%v), want one of %q", kn, err, names)
	}

	// A config with discovery disabled lists no member at all; one that lists members
	// lists the node itself among them.
	found, err := n.Members(ctx)
	if err != nil || len(found) > 0 && !slices.ContainsFunc(found, func(m talos.ClusterMember) bool { return slices.Contains(names, m.Hostname) }) {
		t.Errorf("discovery members %+v (%v), want one named %s", found, err, names[0])
	}
}

// stillRuns checks the node still runs the target's config.
func stillRuns(ctx context.Context, t *testing.T, n talos.Node, tg Target) {
	t.Helper()

	running, err := n.MachineConfig(ctx)
	if err != nil || !same(t, running, tg.Config) {
		t.Errorf("the running config changed (%v)", err)
	}
}

// changed is cfg with one sysctl more.
func changed(t *testing.T, cfg []byte) []byte {
	t.Helper()

	patch, err := configpatcher.LoadPatch([]byte("machine:\n  sysctls:\n    net.ipv4.tcp_fin_timeout: \"33\"\n"))
	if err != nil {
		t.Fatal(err)
	}

	out, err := configpatcher.Apply(configpatcher.WithBytes(cfg), []configpatcher.Patch{patch})
	if err != nil {
		t.Fatal(err)
	}

	data, err := out.Bytes()
	if err != nil {
		t.Fatal(err)
	}

	return data
}

// same reports whether two configs are the same documents, however encoded.
func same(t *testing.T, a, b []byte) bool {
	t.Helper()

	enc := func(data []byte) []byte {
		cfg, err := configloader.NewFromBytes(data)
		if err != nil {
			t.Fatal(err)
		}

		out, err := cfg.EncodeBytes(encoder.WithComments(encoder.CommentsDisabled))
		if err != nil {
			t.Fatal(err)
		}

		return out
	}

	return bytes.Equal(enc(a), enc(b))
}
