package rules_test

import (
	"testing"

	"github.com/talops/talops/internal/rules"
)

// A Talos patch that moves the LTS driver within its branch moves an exact pin with it.
func TestPinMove_ExactPinFollowsATalosPatchWithinItsBranch(t *testing.T) {
	t.Parallel()

	base := gpuRepo{talos: "v1.13.8", k8s: "v1.36.4", flavour: "lts", pin: "580.173.02", extensions: []string{openLTS, toolkitLTS}, patches: []string{modulesPatch}}
	head := base
	head.talos = "v1.13.9"

	b := bump(t, base, head)

	move, ok := rules.PinMove(b)
	if !ok || move != (rules.Change{From: "580.173.02", To: "580.178.04"}) {
		t.Errorf("PinMove = %+v, %v; want 580.173.02 → 580.178.04\n%s", move, ok, describe(b.Findings))
	}
}

func TestPinMove_LeavesEveryPinThatIsNoRoutineMove(t *testing.T) {
	t.Parallel()

	gpu := func(pin, to string) rules.GPUChange {
		return rules.GPUChange{Node: "gpu-1", Flavour: "lts", Driver: rules.Change{From: "580.173.02", To: to}, Pin: pin, PinBroken: true}
	}

	tests := []struct {
		name string
		gpus []rules.GPUChange
		want rules.Change
		ok   bool
	}{
		{name: "exact pin within its branch", gpus: []rules.GPUChange{gpu("580.173.02", "580.178.04")}, want: rules.Change{From: "580.173.02", To: "580.178.04"}, ok: true},
		{name: "a shorter pin keeps its precision", gpus: []rules.GPUChange{gpu("580.173", "580.178.04")}, want: rules.Change{From: "580.173", To: "580.178"}, ok: true},
		{name: "two GPU nodes on the same driver", gpus: []rules.GPUChange{gpu("580.173.02", "580.178.04"), gpu("580.173.02", "580.178.04")}, want: rules.Change{From: "580.173.02", To: "580.178.04"}, ok: true},
		{name: "a branch pin never moves", gpus: []rules.GPUChange{gpu("570", "580.178.04")}},
		{name: "an exact pin never crosses branches", gpus: []rules.GPUChange{gpu("570.195.03", "580.178.04")}},
		{name: "a pin the driver still matches", gpus: []rules.GPUChange{gpu("580.178.04", "580.178.04")}},
		{name: "a driver the release data does not give", gpus: []rules.GPUChange{gpu("580.173.02", rules.UnknownVersion)}},
		{name: "a driver known only by its branch", gpus: []rules.GPUChange{gpu("580.173.02", "595.x")}},
		{name: "GPU nodes that would need two pins", gpus: []rules.GPUChange{gpu("580.173.02", "580.178.04"), gpu("580.173.02", "580.178.05")}},
		{name: "no pin", gpus: []rules.GPUChange{gpu("", "580.178.04")}},
		{name: "no GPU node"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			move, ok := rules.PinMove(&rules.Bump{GPUNodes: tt.gpus})
			if move != tt.want || ok != tt.ok {
				t.Errorf("PinMove = %+v, %v; want %+v, %v", move, ok, tt.want, tt.ok)
			}
		})
	}
}
