package main

import "testing"

func TestSetMemoryLimit_DefaultWhenGOMEMLIMITIsUnset(t *testing.T) {
	var got int64 = -1

	setMemoryLimit(func(string) (string, bool) { return "", false }, func(n int64) int64 { got = n; return 0 })

	if got != 36<<20 {
		t.Errorf("limit %d, want 36 MiB", got)
	}
}

func TestSetMemoryLimit_GOMEMLIMITWins(t *testing.T) {
	for _, v := range []string{"off", "1GiB", ""} {
		called := false

		setMemoryLimit(func(k string) (string, bool) { return v, k == "GOMEMLIMIT" }, func(int64) int64 { called = true; return 0 })

		if called {
			t.Errorf("GOMEMLIMIT=%q: the default limit replaced the environment's", v)
		}
	}
}
