package talos_test

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/talops/talops/internal/talos"
	"github.com/talops/talops/internal/talos/talostest"
)

func dialOne(t *testing.T, n talostest.Node) (talos.Node, *talostest.Server) {
	t.Helper()

	ca := talostest.NewCA(t)
	s := talostest.Start(t, ca, n)

	node, err := lab(t, ca, ca.ClientCert(t), map[string]string{"10.0.0.1": s.Addr}).Dial(context.Background(), "10.0.0.1")
	if err != nil {
		t.Fatal(err)
	}

	t.Cleanup(func() { node.Close() }) //nolint:errcheck // the test is done with it

	return node, s
}

func TestApply_EachModeIsSentExplicitlyAndTheNodeRunsTheNewConfig(t *testing.T) {
	ctx := context.Background()
	newConfig := strings.Replace(workerConfig, "clusterName: fake", "clusterName: renamed", 1)

	for mode, want := range map[talos.Mode]string{talos.ModeAuto: "AUTO", talos.ModeNoReboot: "NO_REBOOT", talos.ModeTry: "TRY"} {
		node, s := dialOne(t, talostest.Node{Name: "a", Config: []byte(workerConfig), Version: "v1.14.1"})

		a, err := node.Apply(ctx, []byte(newConfig), mode, false)
		if err != nil || a.Rebooting {
			t.Fatalf("%s: %+v %v", mode, a, err)
		}

		if got := s.Applied(); len(got) != 1 || got[0].Mode != want {
			t.Errorf("%s: the node took %+v", mode, got)
		}

		running, err := node.MachineConfig(ctx)
		if err != nil || !strings.Contains(string(running), "renamed") {
			t.Errorf("%s: running config %s %v", mode, running, err)
		}
	}
}

func TestApply_StagedTakesEffectOnRebootWhichChangesTheBootID(t *testing.T) {
	ctx := context.Background()
	node, s := dialOne(t, talostest.Node{Name: "a", Config: []byte(workerConfig), Version: "v1.14.1"})

	before, err := node.BootID(ctx)
	if err != nil || before == "" {
		t.Fatalf("boot id %q %v", before, err)
	}

	if _, err := node.Apply(ctx, []byte(strings.Replace(workerConfig, "fake\n", "staged\n", 1)), talos.ModeStaged, false); err != nil {
		t.Fatal(err)
	}

	if running, _ := node.MachineConfig(ctx); strings.Contains(string(running), "staged") {
		t.Error("a staged config runs before the reboot")
	}

	if err := node.Reboot(ctx); err != nil {
		t.Fatal(err)
	}

	s.WaitRunning(t)

	after, _ := node.BootID(ctx)
	if running, _ := node.MachineConfig(ctx); !strings.Contains(string(running), "staged") || after == before || s.Reboots() != 1 {
		t.Errorf("after the reboot: boot id %s → %s, config %s", before, after, running)
	}

	st, err := node.Status(ctx)
	if err != nil || !st.Running() {
		t.Errorf("status %+v %v", st, err)
	}
}

func TestApply_DryRunChangesNothing(t *testing.T) {
	node, s := dialOne(t, talostest.Node{Name: "a", Config: []byte(workerConfig), Version: "v1.14.1"})

	if _, err := node.Apply(context.Background(), []byte(strings.Replace(workerConfig, "fake\n", "other\n", 1)), talos.ModeAuto, true); err != nil {
		t.Fatal(err)
	}

	running, _ := node.MachineConfig(context.Background())
	if s.DryRuns() != 1 || len(s.Applied()) != 0 || !strings.Contains(string(running), "clusterName: fake") {
		t.Errorf("dry runs %d, applied %d, running %s", s.DryRuns(), len(s.Applied()), running)
	}
}

func TestApply_AFailingNodeSaysSo(t *testing.T) {
	node, s := dialOne(t, talostest.Node{Name: "a", Config: []byte(workerConfig), Version: "v1.14.1", Fail: []string{"ApplyConfiguration", "Reboot"}})

	if _, err := node.Apply(context.Background(), []byte(workerConfig), talos.ModeAuto, false); status.Code(err) != codes.Internal {
		t.Errorf("apply: %v", err)
	}

	if err := node.Reboot(context.Background()); status.Code(err) != codes.Internal {
		t.Errorf("reboot: %v", err)
	}

	if len(s.Applied()) != 0 || s.Reboots() != 0 {
		t.Error("a failed call was recorded")
	}
}
