package factory_test

import (
	"fmt"
	"sync"
)

// recordingT stands in for testing.T where a test checks what the fake
// reports.
type recordingT struct {
	mu       sync.Mutex
	errors   []string
	cleanups []func()
}

func (r *recordingT) Helper() {}

func (r *recordingT) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()

	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recordingT) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }

func (r *recordingT) finish() []string {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}

	r.mu.Lock()
	defer r.mu.Unlock()

	return r.errors
}
