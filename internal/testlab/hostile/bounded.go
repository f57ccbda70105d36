package hostile

import (
	"fmt"
	"runtime/metrics"
	"testing"
	"time"
)

// What one input of a fuzz target over user input may cost: a few hundred bytes of YAML
// must never become gigabytes or minutes.
const (
	InputAllocBudget = 64 << 20
	InputTimeBudget  = 2 * time.Second
)

// Bounded runs f, one input of a fuzz target, under InputAllocBudget and InputTimeBudget.
// A watchdog samples the process's allocations while f runs and panics past either
// budget: an input that would exhaust the machine crashes the fuzzing worker at once, and
// the fuzzer keeps it as a failing input, instead of the worker being killed for memory
// much later with nothing kept.
func Bounded(t testing.TB, f func()) {
	t.Helper()

	start := allocated()
	began := time.Now()
	done := make(chan struct{})
	watched := make(chan struct{})

	go func() {
		defer close(watched)

		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()

		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if a := allocated() - start; a > InputAllocBudget {
					panic(fmt.Sprintf("one input allocated %d MiB, more than its budget of %d MiB", a>>20, InputAllocBudget>>20))
				}

				if d := time.Since(began); d > InputTimeBudget {
					panic(fmt.Sprintf("one input ran %s, longer than its budget of %s", d.Round(time.Millisecond), InputTimeBudget))
				}
			}
		}
	}()

	f()
	close(done)
	<-watched

	if a := allocated() - start; a > InputAllocBudget {
		t.Fatalf("one input allocated %d MiB, more than its budget of %d MiB", a>>20, InputAllocBudget>>20)
	}
}

// allocated is the bytes the process has allocated on the heap so far.
func allocated() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)

	return s[0].Value.Uint64()
}
