package talos_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/generate"
	"github.com/siderolabs/talos/pkg/machinery/config/generate/secrets"
	"github.com/siderolabs/talos/pkg/machinery/config/machine"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/talops/talops/internal/talos"
	"github.com/talops/talops/internal/talos/talostest"
)

// generated returns a control plane's and a worker's config of one new cluster.
func generated(t *testing.T) (controlPlane, worker []byte) {
	t.Helper()

	bundle, err := secrets.NewBundle(secrets.NewFixedClock(time.Now()), config.TalosVersionCurrent)
	if err != nil {
		t.Fatal(err)
	}

	in, err := generate.NewInput("fake", "https://10.0.0.10:6443", "1.36.4", generate.WithSecretsBundle(bundle))
	if err != nil {
		t.Fatal(err)
	}

	encode := func(typ machine.Type) []byte {
		cfg, err := in.Config(typ)
		if err != nil {
			t.Fatal(err)
		}

		data, err := cfg.EncodeBytes()
		if err != nil {
			t.Fatal(err)
		}

		return data
	}

	return encode(machine.TypeControlPlane), encode(machine.TypeWorker)
}

// clusterConfig is the least control plane config of a cluster: its Kubernetes endpoint
// is what the kubeconfig names.
const clusterConfig = `version: v1alpha1
machine:
  type: controlplane
  token: fake-machine-token
  ca:
    crt: ZmFrZQ==
cluster:
  clusterName: fake
  controlPlane:
    endpoint: https://10.0.0.10:6443
`

// fakeCluster starts configured nodes of one talostest.Cluster, at 10.0.0.1, .2, …: the
// control planes first (the first one bootstraps etcd), then the workers.
type fakeCluster struct {
	c       *talostest.Cluster
	servers map[string]*talostest.Server
	d       *talos.ClientDialer
}

func startCluster(t *testing.T, cps, workers int) *fakeCluster {
	t.Helper()

	cp, w := []byte(clusterConfig), []byte(workerConfig)
	ca := talostest.NewCA(t)
	fc := &fakeCluster{c: &talostest.Cluster{}, servers: map[string]*talostest.Server{}}
	endpoints := map[string]string{}

	for i := range cps + workers {
		name, cfg := "cp"+string(rune('1'+i)), cp
		if i >= cps {
			name, cfg = "w"+string(rune('1'+i-cps)), w
		}

		addr := "10.0.0." + string(rune('1'+i))
		fc.servers[name] = talostest.Start(t, ca, talostest.Node{Name: name, Address: addr, Config: cfg, Version: "v1.14.1", Cluster: fc.c})
		endpoints[addr] = fc.servers[name].Addr
	}

	fc.d = lab(t, ca, ca.ClientCert(t), endpoints)

	return fc
}

func (fc *fakeCluster) dial(t *testing.T, address string) talos.Node {
	t.Helper()

	n, err := fc.d.Dial(context.Background(), address)
	if err != nil {
		t.Fatal(err)
	}

	t.Cleanup(func() { n.Close() }) //nolint:errcheck // the test is done with it

	return n
}

// eventually retries check for up to 5 seconds.
func eventually(t *testing.T, what string, check func() bool) {
	t.Helper()

	for deadline := time.Now().Add(5 * time.Second); !check(); {
		if time.Now().After(deadline) {
			t.Fatalf("after 5s: %s", what)
		}

		time.Sleep(10 * time.Millisecond)
	}
}

func hostnames(members []talos.EtcdMember) []string {
	var out []string
	for _, m := range members {
		out = append(out, m.Hostname)
	}

	return out
}

func TestReset_GracefulControlPlaneLeavesEtcdAndBootsIntoMaintenanceMode(t *testing.T) {
	t.Parallel()

	fc := startCluster(t, 3, 0)
	ctx := context.Background()

	members, err := fc.dial(t, "10.0.0.1").EtcdMembers(ctx)
	if err != nil || !slices.Equal(hostnames(members), []string{"cp1", "cp2", "cp3"}) || members[2].Address() != "10.0.0.3" {
		t.Fatalf("members before: %+v, %v", members, err)
	}

	if err := fc.dial(t, "10.0.0.3").Reset(ctx, talos.ResetOptions{Graceful: true, Reboot: true, Wipe: talos.WipeToMaintenance}); err != nil {
		t.Fatalf("reset: %v", err)
	}

	s := fc.servers["cp3"]
	eventually(t, "cp3 is not back in maintenance mode", s.InMaintenance)

	if got := s.Resets(); len(got) != 1 || !got[0].Graceful || !got[0].Reboot || got[0].Mode != "SYSTEM_DISK" || !slices.Equal(got[0].Wiped, []string{"STATE", "EPHEMERAL"}) || !got[0].LeftEtcd {
		t.Errorf("resets: %+v", got)
	}

	members, err = fc.dial(t, "10.0.0.1").EtcdMembers(ctx)
	if err != nil || !slices.Equal(hostnames(members), []string{"cp1", "cp2"}) {
		t.Errorf("members after: %v, %v; want cp1 and cp2", hostnames(members), err)
	}

	eventually(t, "the reset node still answers in stage maintenance", func() bool {
		m, err := fc.d.DialMaintenance(ctx, "10.0.0.3")
		if err != nil {
			return false
		}
		defer m.Close() //nolint:errcheck // the test is done with it

		st, err := m.Status(ctx)

		return err == nil && st.Stage == talos.StageMaintenance
	})

	if _, err := fc.dial(t, "10.0.0.3").Version(ctx); err == nil {
		t.Error("the reset node still answers over mTLS")
	}
}

func TestReset_TheLastEtcdMemberCannotLeaveAndKeepsRunning(t *testing.T) {
	t.Parallel()

	fc := startCluster(t, 1, 0)
	ctx := context.Background()

	if err := fc.dial(t, "10.0.0.1").Reset(ctx, talos.ResetOptions{Graceful: true, Reboot: true, Wipe: talos.WipeToMaintenance}); err != nil {
		t.Fatalf("reset: %v", err)
	}

	s := fc.servers["cp1"]
	eventually(t, "the reset did not stop", func() bool { r := s.Resets(); return len(r) == 1 && r[0].Err != "" })

	if r := s.Resets()[0]; !strings.Contains(r.Err, "not enough started members") || r.LeftEtcd {
		t.Errorf("reset: %+v", r)
	}

	if s.InMaintenance() || !slices.Equal(fc.c.EtcdMembers(), []string{"cp1"}) {
		t.Errorf("maintenance %v, members %v: the node must keep running as the only member", s.InMaintenance(), fc.c.EtcdMembers())
	}
}

func TestReset_AnUnknownPartitionIsRefusedBeforeAnything(t *testing.T) {
	t.Parallel()

	fc := startCluster(t, 0, 1)

	err := fc.dial(t, "10.0.0.1").Reset(context.Background(), talos.ResetOptions{Graceful: true, Reboot: true, Wipe: []string{"NOPE"}})
	if err == nil || !strings.Contains(err.Error(), `failed to get volume status with label "NOPE"`) || len(fc.servers["w1"].Resets()) != 0 {
		t.Errorf("reset wiping NOPE: %v, resets %+v", err, fc.servers["w1"].Resets())
	}
}

func TestEtcdRemoveMember_RemovesAnotherMemberAndAnUnknownIDIsNotFound(t *testing.T) {
	t.Parallel()

	fc := startCluster(t, 3, 0)
	ctx := context.Background()
	n := fc.dial(t, "10.0.0.1")

	members, err := n.EtcdMembers(ctx)
	if err != nil {
		t.Fatal(err)
	}

	if err := n.EtcdRemoveMember(ctx, members[1].ID); err != nil {
		t.Fatalf("remove cp2: %v", err)
	}

	if got := fc.c.EtcdMembers(); !slices.Equal(got, []string{"cp1", "cp3"}) {
		t.Errorf("members %v, want cp1 and cp3", got)
	}

	if err := n.EtcdRemoveMember(ctx, members[1].ID); status.Code(err) != codes.NotFound {
		t.Errorf("remove cp2 again: %v, want NotFound", err)
	}
}

func TestMembers_EveryNodeListsTheClusterWithAddressesAndRoles(t *testing.T) {
	t.Parallel()

	fc := startCluster(t, 1, 2)

	got, err := fc.dial(t, "10.0.0.3").Members(context.Background())
	if err != nil {
		t.Fatal(err)
	}

	var lines []string
	for _, m := range got {
		lines = append(lines, m.Hostname+" "+m.Role+" "+strings.Join(m.Addresses, ","))
	}

	slices.Sort(lines)

	if want := []string{"cp1 controlplane 10.0.0.1", "w1 worker 10.0.0.2", "w2 worker 10.0.0.3"}; !slices.Equal(lines, want) {
		t.Errorf("members %q, want %q", lines, want)
	}
}

func TestKubeconfig_AControlPlaneGivesTheAdminKubeconfigAndAWorkerRefuses(t *testing.T) {
	t.Parallel()

	fc := startCluster(t, 1, 1)
	ctx := context.Background()

	kc, err := fc.dial(t, "10.0.0.1").Kubeconfig(ctx)
	if err != nil || string(kc) != string(talostest.KubeconfigBytes("fake", "https://10.0.0.10:6443")) {
		t.Errorf("kubeconfig: %v\n%s", err, kc)
	}

	if _, err := fc.dial(t, "10.0.0.2").Kubeconfig(ctx); status.Code(err) != codes.Unimplemented {
		t.Errorf("kubeconfig of a worker: %v, want Unimplemented", err)
	}
}

// A node in maintenance mode answers the maintenance API without a client certificate and
// nothing over mTLS; configured, it answers over mTLS, refuses insecure clients, and takes
// Bootstrap once.
func TestMaintenance_ConfiguredOnceThenMTLSAndBootstrapOnlyOnce(t *testing.T) {
	t.Parallel()

	cp, _ := generated(t)
	ca := talostest.NewCA(t)
	c := &talostest.Cluster{}
	s := talostest.Start(t, ca, talostest.Node{Name: "cp1", Address: "10.0.0.1", Version: "v1.14.1", Cluster: c})
	d := lab(t, ca, ca.ClientCert(t), map[string]string{"10.0.0.1": s.Addr})
	ctx := context.Background()

	if n, err := d.Dial(ctx, "10.0.0.1"); err == nil {
		_, err := n.Version(ctx)
		n.Close() //nolint:errcheck // the test is done with it

		if err == nil {
			t.Error("a node in maintenance mode answered over mTLS")
		}
	}

	m, err := d.DialMaintenance(ctx, "10.0.0.1")
	if err != nil {
		t.Fatal(err)
	}

	if st, err := m.Status(ctx); err != nil || st.Stage != talos.StageMaintenance {
		t.Fatalf("maintenance status: %+v, %v", st, err)
	}

	if a, err := m.Apply(ctx, cp, true); err != nil || !strings.HasPrefix(a.Details, "Dry run summary:") || len(s.Applied()) != 0 {
		t.Fatalf("dry run: %+v, %v", a, err)
	}

	if a, err := m.Apply(ctx, cp, false); err != nil || a.Mode != "NO_REBOOT" {
		t.Fatalf("first config: %+v, %v", a, err)
	}

	m.Close() //nolint:errcheck // the test is done with it

	eventually(t, "the node did not leave maintenance mode", func() bool { return !s.InMaintenance() })
	s.WaitRunning(t)

	n, err := d.Dial(ctx, "10.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close() //nolint:errcheck // the test is done with it

	if _, err := n.EtcdMembers(ctx); err == nil {
		t.Error("etcd lists members before the bootstrap")
	}

	if err := n.Bootstrap(ctx); err != nil {
		t.Fatalf("bootstrap: %v", err)
	}

	if err := n.Bootstrap(ctx); !errors.Is(err, talos.ErrBootstrapped) {
		t.Errorf("second bootstrap: %v, want ErrBootstrapped", err)
	}

	if s.Bootstraps() != 1 || !slices.Equal(c.EtcdMembers(), []string{"cp1"}) {
		t.Errorf("bootstraps %d, members %v", s.Bootstraps(), c.EtcdMembers())
	}

	again, err := d.DialMaintenance(ctx, "10.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close() //nolint:errcheck // the test is done with it

	if _, err := again.Apply(ctx, cp, true); err == nil {
		t.Error("a configured node took a config from a client without a certificate")
	}
}
