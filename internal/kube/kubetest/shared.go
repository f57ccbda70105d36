package kubetest

import (
	"fmt"
	"os"
	"sync"
	"testing"
)

// Shared is one server for a whole test package: the first Env call starts it and Run
// stops it after the package's tests. The zero value is ready to use.
type Shared struct {
	once sync.Once
	env  *Env
	err  error
}

// Env is the package's server, started on first use; without the binaries the test fails.
func (s *Shared) Env(t testing.TB) *Env {
	t.Helper()

	s.once.Do(func() { s.env, s.err = start(os.Getenv) })

	if s.err != nil {
		t.Fatal(s.err)
	}

	return s.env
}

// Run runs the package's tests (from TestMain) and then stops the server if one started;
// its result is the exit code.
func (s *Shared) Run(m *testing.M) int {
	code := m.Run()

	if s.env != nil {
		if err := s.env.stop(); err != nil {
			fmt.Fprintf(os.Stderr, "stop kube-apiserver: %v\n", err)

			if code == 0 {
				code = 1
			}
		}
	}

	return code
}
