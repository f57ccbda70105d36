package cluster

import (
	"strings"
	"testing"
)

// The patterns leave lengths to their callers; these are the bounds the patterns once held.
func TestNamePatterns_StopAtTheirLongestLength(t *testing.T) {
	tests := []struct {
		name    string
		ok      func(string) bool
		longest string
	}{
		{"a DNS label has at most 63 characters", isDNSLabel, strings.Repeat("a", 63)},
		{"a node name has at most 63 characters", isName, "a." + strings.Repeat("b", 61)},
		{"a kind has at most 63 characters", isKind, "K" + strings.Repeat("k", 62)},
		{"a host PCI mapping name has at most 128 characters", isHostPCI, "gpu" + strings.Repeat("-", 125)},
		{"a CPU model has at most 64 characters", isCPU, "x86-64-v2-AES" + strings.Repeat("+", 51)},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.ok(tt.longest) {
				t.Errorf("%q (%d characters) is refused, want it accepted", tt.longest, len(tt.longest))
			}

			if longer := tt.longest + "a"; tt.ok(longer) {
				t.Errorf("%q (%d characters) is accepted, want it refused", longer, len(longer))
			}
		})
	}
}

func TestHostPCIPattern_AcceptsAFullPCIAddress(t *testing.T) {
	for _, dev := range []string{"0000:01:00.0", "01:00.0", "01:00", "gpu0"} {
		if !isHostPCI(dev) {
			t.Errorf("%q is refused, want it accepted", dev)
		}
	}
}
