// Package httpcaptest holds what the tests of the capped HTTP clients share: a server that
// never ends its answer, and a measure of what a call allocated.
package httpcaptest

import (
	"io"
	"net/http"
	"runtime"
	"strings"
)

// Endless answers every request with prefix, the start of a JSON document, then streams
// until the client gives up, as a hostile or broken server does.
func Endless(prefix string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, prefix)

		chunk := []byte(strings.Repeat("a", 64<<10))

		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
}

// Allocated runs f and says how many bytes it allocated.
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats

	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)

	return after.TotalAlloc - before.TotalAlloc
}
