package cluster_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
)

func TestSetValue_ChangesOnlyTheValueKeepingQuotesAndComments(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name, in, want string
	}{
		{
			name: "double quoted, comment after",
			in:   "# the lab\nnvidia:\n  flavour: lts\n  driver: \"580.173.02\"   # exact: moves with Talos\nnodes: []\n",
			want: "# the lab\nnvidia:\n  flavour: lts\n  driver: \"580.178.04\"   # exact: moves with Talos\nnodes: []\n",
		},
		{
			name: "single quoted",
			in:   "nvidia:\n  driver: '580.173.02'\n",
			want: "nvidia:\n  driver: '580.178.04'\n",
		},
		{
			name: "plain",
			in:   "nvidia:\n  driver: 580.173.02\n",
			want: "nvidia:\n  driver: 580.178.04\n",
		},
		{
			name: "flow mapping",
			in:   "nvidia: {flavour: lts, driver: \"580.173.02\"}\n",
			want: "nvidia: {flavour: lts, driver: \"580.178.04\"}\n",
		},
		{
			name: "no final line break",
			in:   "nvidia:\n  driver: \"580.173.02\"",
			want: "nvidia:\n  driver: \"580.178.04\"",
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			got, err := cluster.SetValue([]byte(tt.in), "nvidia.driver", "580.173.02", "580.178.04")
			if err != nil {
				t.Fatal(err)
			}

			if string(got) != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestSetValue_RefusesWhatItCannotEditInPlace(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name, in, want string
	}{
		{name: "another value than the one decided", in: "nvidia:\n  driver: \"580.178.04\"\n", want: `talops.yaml:2: nvidia.driver is "580.178.04", not "580.173.02"`},
		{name: "no pin", in: "nvidia:\n  flavour: lts\n", want: "talops.yaml: nvidia.driver is not set"},
		{name: "a block scalar", in: "nvidia:\n  driver: |-\n    580.173.02\n", want: "talops.yaml:2: nvidia.driver: write it as a plain or quoted value to let talops change it"},
		{name: "an escape in quotes", in: "nvidia:\n  driver: \"580\\x2e173.02\"\n", want: "talops.yaml:2: nvidia.driver: write it as a plain or quoted value on one line to let talops change it"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			_, err := cluster.SetValue([]byte(tt.in), "nvidia.driver", "580.173.02", "580.178.04")
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}
