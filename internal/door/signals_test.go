package door_test

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/talops/talops/internal/door"
)

// watch starts StopOnSignals with a grace of 20 ms and reports each exit on the channel.
func watch(t *testing.T, acting bool) (ctx context.Context, sigs chan os.Signal, exits chan int) {
	t.Helper()

	sigs, exits = make(chan os.Signal, 2), make(chan int, 2)
	ctx, stop := door.StopOnSignals(context.Background(), sigs, acting, 20*time.Millisecond, func(code int) { exits <- code })
	t.Cleanup(stop)

	return ctx, sigs, exits
}

func TestStopOnSignals_ACommandThatDoesNotReturnIsStoppedAfterTheGrace(t *testing.T) {
	ctx, sigs, exits := watch(t, false)

	sigs <- syscall.SIGTERM
	<-ctx.Done()

	select {
	case code := <-exits:
		if code != door.ExitInterrupted {
			t.Errorf("exit %d, want %d", code, door.ExitInterrupted)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the process was not stopped after the grace")
	}
}

func TestStopOnSignals_AnActingCommandStopsOnlyAtASecondSignal(t *testing.T) {
	ctx, sigs, exits := watch(t, true)

	sigs <- syscall.SIGTERM
	<-ctx.Done()

	select {
	case code := <-exits:
		t.Fatalf("apply was stopped (exit %d) before it reached a safe point", code)
	case <-time.After(200 * time.Millisecond):
	}

	sigs <- os.Interrupt

	select {
	case code := <-exits:
		if code != door.ExitInterrupted {
			t.Errorf("exit %d, want %d", code, door.ExitInterrupted)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a second signal did not stop the process")
	}
}

func TestStopOnSignals_ACommandThatReturnedIsNotStopped(t *testing.T) {
	sigs, exits := make(chan os.Signal, 2), make(chan int, 2)
	ctx, stop := door.StopOnSignals(context.Background(), sigs, false, time.Millisecond, func(code int) { exits <- code })

	stop()

	if ctx.Err() == nil {
		t.Error("the context outlives the command")
	}

	sigs <- syscall.SIGTERM

	select {
	case code := <-exits:
		t.Fatalf("exit %d after the command returned", code)
	case <-time.After(100 * time.Millisecond):
	}
}

func TestActing_ApplyAndProxmoxStopAtTheirSafePoints(t *testing.T) {
	for args, want := range map[string]bool{
		"apply": true, "action apply": true, "proxmox vms": true,
		"validate": false, "plan": false, "action plan": false, "": false,
	} {
		if got := door.Acting(strings.Fields(args)); got != want {
			t.Errorf("Acting(%q) = %v, want %v", args, got, want)
		}
	}
}
