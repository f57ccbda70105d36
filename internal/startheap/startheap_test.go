package startheap

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strings"
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
	if os.Getenv("STARTHEAP_REPORT") != "" {
		fmt.Println(readMetrics(percentMetric, goalMetric, cyclesMetric))
		os.Exit(0)
	}

	os.Exit(m.Run())
}

func startChild(t *testing.T, env ...string) string {
	t.Helper()

	cmd := exec.Command(os.Args[0])
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GOGC=") }),
		append([]string{"STARTHEAP_REPORT=1"}, env...)...)

	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child run: %v", err)
	}

	return strings.TrimSpace(string(out))
}

func TestInit_FirstGoalIs12MiBWithoutGOGC(t *testing.T) {
	t.Parallel()

	if got, want := startChild(t), fmt.Sprintf("[%d %d 0]", startPercent, 12<<20); got != want {
		t.Errorf("percent, heap goal and collections after init = %s, want %s", got, want)
	}
}

func TestInit_LeavesAGOGCFromTheEnvironment(t *testing.T) {
	t.Parallel()

	if got, want := startChild(t, "GOGC=50"), fmt.Sprintf("[50 %d 0]", 2<<20); got != want {
		t.Errorf("percent, heap goal and collections after init with GOGC=50 = %s, want %s", got, want)
	}
}

// waitForPercent collects until the percent is want: a cleanup runs on its own goroutine
// once a collection has swept its object.
func waitForPercent(t *testing.T, want uint64) {
	t.Helper()

	for deadline := time.Now().Add(10 * time.Second); readMetrics(percentMetric)[0] != want; {
		if time.Now().After(deadline) {
			t.Fatalf("percent 10 s after a collection = %d, want %d", readMetrics(percentMetric)[0], want)
		}

		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

func TestDelayFirstCollection_PutsThePercentBackAfterACollection(t *testing.T) {
	// Not parallel: it sets the process's collector percent. The package's own init did
	// the same when this binary started (unless GOGC is set): its percent comes back first.
	if _, set := os.LookupEnv("GOGC"); !set {
		waitForPercent(t, 100)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(123))

	delayFirstCollection()

	if got := readMetrics(percentMetric)[0]; got != startPercent {
		t.Fatalf("percent before a collection = %d, want %d", got, startPercent)
	}

	waitForPercent(t, 123)
}
