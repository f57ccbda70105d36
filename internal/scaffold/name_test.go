package scaffold_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/scaffold"
)

func TestCheckName_AcceptsDNSLabelsOfAtMost63Characters(t *testing.T) {
	tests := []struct {
		name, cluster string
		ok            bool
	}{
		{"63 characters", strings.Repeat("a", 63), true},
		{"64 characters", strings.Repeat("a", 64), false},
		{"a hyphen inside", "home-lab", true},
		{"a leading hyphen", "-lab", false},
		{"a trailing hyphen", "lab-", false},
		{"upper case", "Lab", false},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := scaffold.CheckName(tt.cluster); (err == nil) != tt.ok {
				t.Errorf("CheckName(%q) = %v, want ok=%v", tt.cluster, err, tt.ok)
			}
		})
	}
}
