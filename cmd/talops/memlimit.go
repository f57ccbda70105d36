package main

// defaultMemoryLimit is the Go runtime's soft memory limit when GOMEMLIMIT is not set. At
// 500 nodes a plan holds about 13 MB of live heap (two states rendered) and the collector's
// default headroom (GOGC=100) lets the heap grow to twice that before it collects, which
// took the process past 80 MiB; under the limit it collects sooner instead. Above the
// limit (a plan of some 1,000 nodes and more) the collector runs more often than GOGC
// alone would have it, at up to twice the cpu: docs/performance.md has the measurements,
// and GOMEMLIMIT=off takes the limit away.
const defaultMemoryLimit = 36 << 20

// setMemoryLimit sets the default soft memory limit with set (debug.SetMemoryLimit)
// unless the environment names one, which the runtime has already applied.
func setMemoryLimit(lookupEnv func(string) (string, bool), set func(int64) int64) {
	if _, ok := lookupEnv("GOMEMLIMIT"); ok {
		return
	}

	set(defaultMemoryLimit)
}
