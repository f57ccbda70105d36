// Package startheap keeps the heap goal at 12 MiB or more while the live heap is small, then
// hands the collector back to GOGC.
//
// Every command starts by initialising the same dependencies (Talos machinery's API
// descriptors and resource types, COSI, cel-go, protobuf): some 3 MB, nearly all of it live
// until the process ends. Go's heap goal is never under 4 MiB and otherwise twice the live
// heap, so a collection ran during start-up and found almost nothing to free (a quarter of
// the cpu of `talops --help`, its page faults included), and a command whose live heap
// stays a few MB collected every few MB it allocated: a 500-node validate paid more a node
// than a 5,000-node one (docs/performance.md). 12 MiB holds what `--help` (some 5 MB) and
// validate, render and plan of the reference lab (some 8 MB) allocate in all. Once the live
// heap is half of it, GOGC's goal (twice the live heap) is larger anyway, and the collector
// runs as GOGC says. The Go compiler does the same for its own start
// (cmd/compile/internal/base/startheap.go).
//
// It must run before most of those initialisers, so it is an init (Go runs it once its
// few imports are, ahead of the packages that sort after it and of those waiting on them);
// only the program imports it. A GOGC set in the environment is left as it is.
package startheap

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

const (
	// floor is the least heap goal while the live heap is under half of it.
	floor = 12 << 20
	// minimum is the runtime's least goal at GOGC=100, which it scales with GOGC.
	minimum = 4 << 20
	// defaultPercent is GOGC unset.
	defaultPercent = 100
)

func init() {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}

	debug.SetGCPercent(percentFor(0))
	afterEachCollection(adjust)
}

// adjust sets the percent for the next cycle from the live heap the last one marked, and
// says whether to go on: not once GOGC's own goal is past the floor.
func adjust() bool {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)

	p := percentFor(sample[0].Value.Uint64())
	debug.SetGCPercent(p)

	return p > defaultPercent
}

// percentFor is the percent whose goal is the floor for a live heap of live bytes, or the
// default once the default's goal is past it. The goal is the larger of live × (1 +
// percent/100) and minimum × percent/100, hence the cap at floor/minimum.
func percentFor(live uint64) int {
	const most = 100 * floor / minimum

	if live == 0 {
		return most
	}

	p := int(100*floor/live) - 100

	return max(defaultPercent, min(most, p))
}

// afterEachCollection runs fn after each collection until it returns false. A cleanup runs
// once a collection has found its object unreachable; each one leaves a new object.
func afterEachCollection(fn func() bool) {
	// Larger than the tiny allocator's 16 bytes, so the object is collected on its own.
	type sentinel [32]byte

	var again func(struct{})

	again = func(struct{}) {
		if fn() {
			runtime.AddCleanup(new(sentinel), again, struct{}{})
		}
	}

	runtime.AddCleanup(new(sentinel), again, struct{}{})
}
