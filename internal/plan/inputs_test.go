package plan_test

import (
	"slices"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/plan"
)

// A patch that sets a secret value other than before is named; one that changes only what
// the diffs show, or nothing, is not.
func TestSecretValuesChanged_NamesTheFilesNeverTheValues(t *testing.T) {
	t.Parallel()

	const (
		tokenA = "machine:\n  token: aaaaaa.aaaaaaaaaaaaaaaa\n"
		tokenB = "machine:\n  token: bbbbbb.bbbbbbbbbbbbbbbb\n"
		sysctl = "machine:\n  sysctls:\n    vm.swappiness: \"10\"\n"
	)

	patch := func(data string) []cluster.Input {
		return []cluster.Input{{Path: "patches/x.yaml", Data: []byte(data), Config: true}}
	}

	for _, tc := range []struct {
		name             string
		current, desired []cluster.Input
		want             []string
	}{
		{"another machine token", patch(tokenA), patch(tokenB), []string{"patches/x.yaml"}},
		{"a token and a sysctl changed together", patch(tokenA), patch(tokenB + "  sysctls:\n    vm.swappiness: \"10\"\n"), []string{"patches/x.yaml"}},
		{"a registry password in another document layout", patch("machine:\n  registries:\n    config:\n      r.lab:\n        auth: {password: one}\n"), patch("machine:\n  registries:\n    config:\n      r.lab:\n        auth: {password: two}\n"), []string{"patches/x.yaml"}},
		{"a new patch that sets a token", nil, patch(tokenA), []string{"patches/x.yaml"}},
		{"a patch that set a token removed", patch(tokenA), nil, []string{"patches/x.yaml"}},
		{"the same token, reformatted", patch(tokenA), patch("machine: {token: aaaaaa.aaaaaaaaaaaaaaaa}\n"), nil},
		{"only a value the diffs show", patch(sysctl), patch("machine:\n  sysctls:\n    vm.swappiness: \"20\"\n"), nil},
		{"a file that is no machine config", []cluster.Input{{Path: "talops.yaml", Data: []byte(tokenA)}}, []cluster.Input{{Path: "talops.yaml", Data: []byte(tokenB)}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			if got := plan.SecretValuesChanged(tc.current, tc.desired); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
