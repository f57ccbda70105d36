package talostest_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cosi-project/runtime/pkg/safe"
	"github.com/siderolabs/talos/pkg/machinery/api/machine"
	"github.com/siderolabs/talos/pkg/machinery/client"
	"github.com/siderolabs/talos/pkg/machinery/resources/runtime"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/talops/talops/internal/talos/talostest"
)

// phase is what a fresh client sees of the node: "old" (the boot ID before the reboot),
// "down", or the new boot's machine stage.
func phase(ctx context.Context, t *testing.T, ca *talostest.CA, kp talostest.KeyPair, addr, before string) string {
	t.Helper()

	c := dial(t, ca, kp, addr)

	cctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()

	id, err := bootID(cctx, c)

	switch {
	case status.Code(err) == codes.Unavailable:
		return "down"
	case err != nil:
		t.Fatalf("read boot ID: %v", err)
	case id == before:
		return "old"
	}

	ms, err := safe.StateGetByID[*runtime.MachineStatus](cctx, c.COSI, runtime.MachineStatusID)
	if err != nil {
		t.Fatalf("machine status: %v", err)
	}

	return ms.TypedSpec().Stage.String()
}

func TestReboot_TheOldBootAnswersThenNothingThenTheNodeBoots(t *testing.T) {
	ctx := context.Background()
	ca := talostest.NewCA(t)
	kp := ca.ClientCert(t)
	s := talostest.Start(t, ca, talostest.Node{
		Name: "a", Config: []byte(baseConfig), Version: "v1.14.1",
		Reboot: talostest.Reboot{Answering: 200 * time.Millisecond, Down: 200 * time.Millisecond, Booting: 200 * time.Millisecond},
	})
	c := dial(t, ca, kp, s.Addr)

	before, err := bootID(ctx, c)
	if err != nil {
		t.Fatal(err)
	}

	if err := c.Reboot(ctx); err != nil {
		t.Fatal(err)
	}

	var seen []string

	deadline := time.Now().Add(10 * time.Second)
	for !slices.Contains(seen, "running") && time.Now().Before(deadline) {
		if p := phase(ctx, t, ca, kp, s.Addr, before); len(seen) == 0 || seen[len(seen)-1] != p {
			seen = append(seen, p)
		}

		time.Sleep(10 * time.Millisecond)
	}

	if want := []string{"old", "down", "booting", "running"}; !slices.Equal(seen, want) {
		t.Errorf("phases %q, want %q", seen, want)
	}

	if s.Reboots() != 1 || s.Boots() != 1 {
		t.Errorf("reboots %d, boots %d", s.Reboots(), s.Boots())
	}
}

func TestReboot_BootsWithThePersistedConfig(t *testing.T) {
	tests := []struct {
		name string
		mode machine.ApplyConfigurationRequest_Mode
		// runsBefore and runsAfter say whether the new config runs before and after the reboot.
		runsBefore, runsAfter bool
	}{
		{name: "a staged config runs after the reboot", mode: machine.ApplyConfigurationRequest_STAGED, runsAfter: true},
		{name: "a tried config is gone after the reboot", mode: machine.ApplyConfigurationRequest_TRY, runsBefore: true},
		{name: "a config applied without a reboot stays", mode: machine.ApplyConfigurationRequest_NO_REBOOT, runsBefore: true, runsAfter: true},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			ctx := context.Background()
			s, c := started(t, talostest.Node{Version: "v1.14.1"})

			if _, err := c.ApplyConfiguration(ctx, &machine.ApplyConfigurationRequest{Data: envChange, Mode: tt.mode}); err != nil {
				t.Fatal(err)
			}

			if runs := strings.Contains(running(t, c), "HTTP_PROXY"); runs != tt.runsBefore {
				t.Errorf("before the reboot the new config runs: %t", runs)
			}

			if err := c.Reboot(ctx); err != nil {
				t.Fatal(err)
			}

			s.WaitRunning(t)

			if runs := strings.Contains(running(t, c), "HTTP_PROXY"); runs != tt.runsAfter {
				t.Errorf("after the reboot the new config runs: %t", runs)
			}
		})
	}
}

const newSchematic = "613e1592b2da41ae5e265e8789429f22e121aab91cb4deb6bc3c0b6262961245"

func TestReboot_TheLegacyUpgradeRebootsByItselfAMomentLater(t *testing.T) {
	ctx := context.Background()
	s, c := started(t, talostest.Node{Version: "v1.12.6", SchematicID: "old", Reboot: talostest.Reboot{Answering: 200 * time.Millisecond}})

	if _, err := c.UpgradeWithOptions(ctx); status.Code(err) != codes.InvalidArgument { //nolint:staticcheck // the legacy call is what is tested
		t.Errorf("no image: %v", err)
	}

	if _, err := c.Upgrade(ctx, "factory.talos.dev/installer/"+newSchematic+":v1.12.9", false, false); err != nil { //nolint:staticcheck // the legacy call is what is tested
		t.Fatal(err)
	}

	if v, _ := s.Running(); v != "v1.12.6" || s.Boots() != 0 {
		t.Errorf("right after the call: %s, boots %d", v, s.Boots())
	}

	s.WaitRunning(t)

	if v, id := s.Running(); v != "v1.12.9" || id != newSchematic || s.Boots() != 1 || s.Reboots() != 0 {
		t.Errorf("after: %s %s, boots %d, reboots asked %d", v, id, s.Boots(), s.Reboots())
	}
}

func TestLegacyUpgrade_AControlPlaneChecksEtcdOnlyWhenNeitherForcedNorPreserving(t *testing.T) {
	image := "factory.talos.dev/installer/" + newSchematic + ":v1.12.9"

	tests := []struct {
		name            string
		config          string
		members         []string
		unhealthy       bool
		force, preserve bool
		// wantErr is the refusal (codes.Unknown, a plain error on the real node).
		wantErr string
	}{
		{name: "an unhealthy member refuses", config: controlPlaneConfig, unhealthy: true, wantErr: "error validating etcd for upgrade: etcd member 0000000000000001 is not healthy; all members must be healthy to perform an upgrade: etcdserver: no leader"},
		{name: "two members refuse", config: controlPlaneConfig, members: []string{"a", "b"}, wantErr: "error validating etcd for upgrade: etcd member count(2) is insufficient to maintain quorum if upgrade commences"},
		{name: "preserve skips the check", config: controlPlaneConfig, unhealthy: true, preserve: true},
		{name: "force skips the check", config: controlPlaneConfig, unhealthy: true, force: true},
		{name: "a worker has no etcd to check", config: baseConfig, unhealthy: true},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			s, c := started(t, talostest.Node{Version: "v1.12.6", Config: []byte(tt.config), EtcdMembers: tt.members, EtcdUnhealthy: tt.unhealthy})

			_, err := c.UpgradeWithOptions(context.Background(), client.WithUpgradeImage(image), client.WithUpgradeForce(tt.force), client.WithUpgradePreserve(tt.preserve)) //nolint:staticcheck // the legacy call is what is tested

			if tt.wantErr != "" {
				if status.Code(err) != codes.Unknown || status.Convert(err).Message() != tt.wantErr {
					t.Errorf("err %v, want %q", err, tt.wantErr)
				}

				if len(s.Upgrades()) != 0 {
					t.Errorf("upgrades %+v", s.Upgrades())
				}

				return
			}

			if err != nil {
				t.Fatal(err)
			}

			s.WaitRunning(t)

			if v, _ := s.Running(); v != "v1.12.9" {
				t.Errorf("runs %s after the upgrade", v)
			}
		})
	}
}

func TestMachineStatus_UnmetConditionsWhileBootingAndForGood(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	noCNI := []runtime.UnmetCondition{{Name: "nodeReady", Reason: `node "w1" is not ready`}}

	s, c := started(t, talostest.Node{Name: "w1", Version: "v1.14.1", Unmet: noCNI, Reboot: talostest.Reboot{Booting: 800 * time.Millisecond}})

	status := func() *runtime.MachineStatusSpec {
		ms, err := safe.StateGetByID[*runtime.MachineStatus](ctx, c.COSI, runtime.MachineStatusID)
		if err != nil {
			t.Fatal(err)
		}

		return ms.TypedSpec()
	}

	if st := status(); st.Stage != runtime.MachineStageRunning || st.Status.Ready || !slices.Equal(st.Status.UnmetConditions, noCNI) {
		t.Errorf("before: %+v", st)
	}

	if err := c.Reboot(ctx); err != nil {
		t.Fatal(err)
	}

	booting := []runtime.UnmetCondition{{Name: "services", Reason: "kubelet not running"}, {Name: "nodeReady", Reason: `node "w1" is not ready`}}

	deadline := time.Now().Add(5 * time.Second)
	for s.Boots() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}

	// The boot counts once the node is down; a moment later it answers in stage booting.
	time.Sleep(100 * time.Millisecond)

	if st := status(); st.Stage != runtime.MachineStageBooting || st.Status.Ready || !slices.Equal(st.Status.UnmetConditions, booting) {
		t.Errorf("booting: %+v", st)
	}

	s.WaitRunning(t)

	if st := status(); st.Stage != runtime.MachineStageRunning || st.Status.Ready || !slices.Equal(st.Status.UnmetConditions, noCNI) {
		t.Errorf("after: %+v", st)
	}
}
