// Package startheap lets the heap grow to 12 MiB before the first garbage collection, then
// hands the collector back to GOGC.
//
// Every command starts by initialising the same dependencies (Talos machinery's API
// descriptors and resource types, COSI, cel-go, protobuf): some 3 MB, nearly all of it live
// until the process ends. Go's first heap goal is 4 MiB, so a collection ran during
// start-up and found almost nothing to free: a quarter of the cpu of `talops --help` went
// to it, its page faults included (docs/performance.md). 12 MiB holds what `--help` (some
// 5 MB) and validate, render and plan of the reference lab (some 8 MB) allocate in all; a
// larger start touched more fresh pages in runs that go past it, for nothing measurable.
// The Go compiler delays its own first collection for the same reason
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
)

// startPercent is the collector's percent until its first cycle. Before that cycle, the
// runtime's goal is 4 MiB scaled by the percent: 12 MiB.
const startPercent = 300

func init() {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}

	delayFirstCollection()
}

// delayFirstCollection raises the collector's percent until its next cycle ends, then puts
// back the percent it had.
func delayFirstCollection() {
	previous := debug.SetGCPercent(startPercent)

	afterNextCollection(func() { debug.SetGCPercent(previous) })
}

// afterNextCollection runs fn once a collection has found an object unreachable: after the
// first cycle that starts from now.
func afterNextCollection(fn func()) {
	// Larger than the tiny allocator's 16 bytes, so the object is collected on its own.
	type sentinel [32]byte

	runtime.AddCleanup(new(sentinel), func(struct{}) { fn() }, struct{}{})
}
