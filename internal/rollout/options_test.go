package rollout_test

import (
	"slices"
	"testing"

	"github.com/talops/talops/internal/applied"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/rollout"
)

func TestModes_MatchTheApplySection(t *testing.T) {
	t.Parallel()

	ours := []string{string(rollout.ModeAuto), string(rollout.ModeNoReboot), string(rollout.ModeStaged), string(rollout.ModeTry)}
	if !slices.Equal(ours, cluster.ApplyModes) {
		t.Errorf("rollout modes %v, apply: mode %v", ours, cluster.ApplyModes)
	}
}

func TestRecord_SaysWhereEachOptionCameFrom(t *testing.T) {
	t.Parallel()

	no := false
	given := rollout.Choices{NoDrain: true, AllowRemove: true, Nodes: []string{"n1", "n2"}}
	declared := rollout.DeclaredChoices(&cluster.ApplyOptions{Drain: &no, IgnoreWindow: true, Mode: "staged"})

	want := []applied.Option{
		{Flag: "--allow-remove", Key: "allowRemove: true", Given: true},
		{Flag: "--no-drain", Key: "drain: false", Given: true, Declared: true},
		{Flag: "--ignore-window", Key: "ignoreWindow: true", Declared: true},
		{Flag: "--mode staged", Key: "mode: staged", Declared: true},
		{Flag: "--nodes n1,n2", Given: true},
	}

	if got := rollout.Record(given, declared); !slices.Equal(got, want) {
		t.Errorf("record\n got %+v\nwant %+v", got, want)
	}

	merged := given.Merged(declared)
	if !merged.NoDrain || !merged.AllowRemove || !merged.IgnoreWindow || merged.NoLock || merged.Mode != rollout.ModeStaged {
		t.Errorf("merged %+v", merged)
	}
}
