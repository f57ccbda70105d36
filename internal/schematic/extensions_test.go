package schematic_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/talops/talops/internal/schematic"
)

func withExtensions(exts ...string) *schematic.Schematic {
	return &schematic.Schematic{Customization: schematic.Customization{
		SystemExtensions: schematic.SystemExtensions{OfficialExtensions: exts},
	}}
}

func TestDuplicateExtensions_EachRepeatedNameOnceInFileOrder(t *testing.T) {
	s := withExtensions("siderolabs/zfs", "siderolabs/iscsi-tools", "siderolabs/zfs", "siderolabs/iscsi-tools", "siderolabs/zfs", "siderolabs/nut-client")

	if got, want := schematic.DuplicateExtensions(s), []string{"siderolabs/zfs", "siderolabs/iscsi-tools"}; !slices.Equal(got, want) {
		t.Errorf("DuplicateExtensions = %v, want %v", got, want)
	}

	if got, want := schematic.RepeatedExtensionIndexes(s), []int{2, 3, 4}; !slices.Equal(got, want) {
		t.Errorf("RepeatedExtensionIndexes = %v, want %v", got, want)
	}
}

func TestDuplicateExtensions_NoneInADistinctList(t *testing.T) {
	s := withExtensions("siderolabs/iscsi-tools", "siderolabs/zfs")

	if got := schematic.DuplicateExtensions(s); got != nil {
		t.Errorf("DuplicateExtensions = %v, want none", got)
	}

	if got := schematic.RepeatedExtensionIndexes(s); got != nil {
		t.Errorf("RepeatedExtensionIndexes = %v, want none", got)
	}
}

func TestDuplicateExtensions_ChangeTheID(t *testing.T) {
	once, _ := withExtensions("siderolabs/zfs").ID()
	twice, _ := withExtensions("siderolabs/zfs", "siderolabs/zfs").ID()

	if once == twice {
		t.Error("a repeated extension kept the ID; the factory hashes the list as written")
	}
}

func TestIsSorted_FactoryVectorsSortedAndUnsorted(t *testing.T) {
	for file, want := range map[string]bool{
		"14-nvidia-production-sorted.yaml":            true,
		"15-nvidia-production-UNSORTED-negative.yaml": false,
		"11-qemu-guest-agent.yaml":                    true,
		"01-empty.yaml":                               true,
	} {
		data, err := os.ReadFile(filepath.Join(vectorsDir, file))
		if err != nil {
			t.Fatal(err)
		}

		s, err := schematic.Load(data)
		if err != nil {
			t.Fatal(err)
		}

		if got := schematic.IsSorted(s); got != want {
			t.Errorf("IsSorted(%s) = %v, want %v", file, got, want)
		}
	}
}

func TestFirstUnsorted_PointsAtTheEntryOutOfOrder(t *testing.T) {
	for _, tc := range []struct {
		exts []string
		want int
	}{
		{nil, -1},
		{[]string{"siderolabs/a"}, -1},
		{[]string{"siderolabs/a", "siderolabs/a", "siderolabs/b"}, -1},
		{[]string{"siderolabs/b", "siderolabs/a"}, 1},
		{[]string{"siderolabs/a", "siderolabs/c", "siderolabs/d", "siderolabs/b"}, 3},
		// Byte order: "-" sorts before letters, as in the factory's lists.
		{[]string{"siderolabs/nvidia-open-gpu-kernel-modules-lts", "siderolabs/nvidia-container-toolkit-lts"}, 1},
	} {
		if got := schematic.FirstUnsorted(withExtensions(tc.exts...)); got != tc.want {
			t.Errorf("FirstUnsorted(%v) = %d, want %d", tc.exts, got, tc.want)
		}
	}
}

func TestWithSortedExtensions_UnsortedVectorGetsTheSortedVectorsID(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(vectorsDir, "15-nvidia-production-UNSORTED-negative.yaml"))
	if err != nil {
		t.Fatal(err)
	}

	s, err := schematic.Load(data)
	if err != nil {
		t.Fatal(err)
	}

	before := s.Extensions()

	id, err := s.WithSortedExtensions().ID()
	if err != nil {
		t.Fatal(err)
	}

	if want := "a8651af064e616002d2bf1853faede32d2fd7cc9b05598e490b9d74f0318a08c"; id != want {
		t.Errorf("sorted ID = %s, want the sorted vector's %s", id, want)
	}

	if !slices.Equal(s.Extensions(), before) {
		t.Error("WithSortedExtensions changed the original list")
	}
}

func TestExtensions_ReturnsACopy(t *testing.T) {
	s := withExtensions("siderolabs/zfs")
	s.Extensions()[0] = "changed"

	if s.Customization.SystemExtensions.OfficialExtensions[0] != "siderolabs/zfs" {
		t.Error("changing the result of Extensions changed the schematic")
	}
}
