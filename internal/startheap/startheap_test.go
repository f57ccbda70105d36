package startheap

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The runtime's own account, read without changing anything (debug.SetGCPercent would).
func readMetrics(names ...string) []uint64 {
	samples := make([]metrics.Sample, len(names))
	for i, name := range names {
		samples[i].Name = name
	}

	metrics.Read(samples)

	values := make([]uint64, len(names))
	for i, s := range samples {
		values[i] = s.Value.Uint64()
	}

	return values
}

const (
	percentMetric = "/gc/gogc:percent"
	goalMetric    = "/gc/heap/goal:bytes"
	cyclesMetric  = "/gc/cycles/total:gc-cycles"
)

// A child run of this test binary prints what the package's init left: the percent, the
// heap goal and the collections so far.
func TestMain(m *testing.M) {
	switch os.Getenv("STARTHEAP_REPORT") {
	case "":
	case "after a large live heap":
		// 24 MB kept live: past half the floor, the collector is GOGC's again.
		live := make([][]byte, 24)
		for i := range live {
			live[i] = make([]byte, 1<<20)
		}

		for deadline := time.Now().Add(10 * time.Second); readMetrics(percentMetric)[0] != defaultPercent && time.Now().Before(deadline); {
			runtime.GC()
			time.Sleep(10 * time.Millisecond)
		}

		fmt.Println(readMetrics(percentMetric)[0], len(live))
		runtime.KeepAlive(live)
		os.Exit(0)
	default:
		fmt.Println(readMetrics(percentMetric, goalMetric, cyclesMetric))
		os.Exit(0)
	}

	os.Exit(m.Run())
}

func startChild(t *testing.T, env ...string) string {
	t.Helper()

	cmd := exec.Command(os.Args[0])
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GOGC=") }),
		append([]string{"STARTHEAP_REPORT=init"}, env...)...)

	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child run: %v", err)
	}

	return strings.TrimSpace(string(out))
}

func TestInit_FirstGoalIs12MiBWithoutGOGC(t *testing.T) {
	t.Parallel()

	if got, want := startChild(t), fmt.Sprintf("[%d %d 0]", 300, 12<<20); got != want {
		t.Errorf("percent, heap goal and collections after init = %s, want %s", got, want)
	}
}

func TestInit_GOGCsOwnOnceTheLiveHeapIsPastHalfTheFloor(t *testing.T) {
	t.Parallel()

	if got := startChild(t, "STARTHEAP_REPORT=after a large live heap"); got != "100 24" {
		t.Errorf("percent after collections of a 24 MB live heap = %s, want 100", got)
	}
}

func TestInit_LeavesAGOGCFromTheEnvironment(t *testing.T) {
	t.Parallel()

	if got, want := startChild(t, "GOGC=50"), fmt.Sprintf("[50 %d 0]", 2<<20); got != want {
		t.Errorf("percent, heap goal and collections after init with GOGC=50 = %s, want %s", got, want)
	}
}

// The goal the runtime sets for a live heap at a percent (runtime/mgcpacer.go: the larger
// of the live heap grown by the percent and the minimum scaled by it).
func goal(live uint64, percent int) uint64 {
	return max(live+live*uint64(percent)/100, minimum*uint64(percent)/100)
}

func TestPercentFor_GoalIsTheFloorUntilTheLiveHeapIsHalfOfIt(t *testing.T) {
	t.Parallel()

	const mb = 1 << 20

	for _, tc := range []struct {
		name    string
		live    uint64
		percent int
	}{
		{"before any collection", 0, 300},
		{"the start-up's live heap", 3 * mb, 300},
		{"a third of the floor", 4 * mb, 200},
		{"just under half of it", 5 * mb, 140},
		{"half of it: GOGC's goal is the floor", 6 * mb, 100},
		{"past it", 20 * mb, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			p := percentFor(tc.live)
			if p != tc.percent {
				t.Errorf("percentFor(%d MB) = %d, want %d", tc.live/mb, p, tc.percent)
			}

			// Integer percents round the goal down by less than a percent of the live heap.
			if g := goal(tc.live, p); g < floor-tc.live/100 || (tc.live < floor/2 && g > floor) {
				t.Errorf("goal at %d MB live = %d, want the floor %d", tc.live/mb, g, floor)
			}
		})
	}
}

func TestAfterEachCollection_RunsUntilTheFunctionSaysStop(t *testing.T) {
	t.Parallel()

	var calls atomic.Int32

	afterEachCollection(func() bool { return calls.Add(1) < 3 })

	for deadline := time.Now().Add(10 * time.Second); calls.Load() < 3; {
		if time.Now().After(deadline) {
			t.Fatalf("calls 10 s after collections = %d, want 3", calls.Load())
		}

		runtime.GC()
		time.Sleep(time.Millisecond)
	}

	for range 5 {
		runtime.GC()
	}

	time.Sleep(20 * time.Millisecond)

	if got := calls.Load(); got != 3 {
		t.Errorf("calls after it said stop = %d, want 3", got)
	}
}
