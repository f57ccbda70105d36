package catalog_test

import (
	"testing"

	"github.com/talops/talops/internal/catalog"
)

func TestKubernetesMove_CountsMinorsCrossed(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		from, to    string
		minors, cmp int
	}{
		{"v1.35.2", "v1.36.4", 1, 1},
		{"v1.34.1", "v1.36.0", 2, 1},
		{"1.36.4", "v1.36.4", 0, 0},
		{"v1.36.4", "v1.36.1", 0, -1},
		{"v1.36.4", "v1.35.9", -1, -1},
	} {
		minors, cmp, err := catalog.KubernetesMove(tc.from, tc.to)
		if err != nil || minors != tc.minors || cmp != tc.cmp {
			t.Errorf("KubernetesMove(%s, %s) = %d, %d, %v; want %d, %d", tc.from, tc.to, minors, cmp, err, tc.minors, tc.cmp)
		}
	}

	if _, _, err := catalog.KubernetesMove("v1.36.4", "latest"); err == nil {
		t.Error("a version that does not parse is not an error")
	}

	if _, _, err := catalog.KubernetesMove("v1.36.4", "v2.0.0"); err == nil {
		t.Error("a change of major version is not an error")
	}
}

func TestCompareMinor_PlacesAReleaseAgainstAMinorLine(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		talos, minor string
		want         int
	}{
		{"v1.13.9", "1.13", 0},
		{"v1.14.0-rc.1", "1.14", 0},
		{"v1.12.11", "1.13", -1},
		{"v1.14.0", "1.13", 1},
		{"v2.0.0", "1.14", 1},
	} {
		got, err := catalog.CompareMinor(tc.talos, tc.minor)
		if err != nil || got != tc.want {
			t.Errorf("CompareMinor(%s, %s) = %d, %v; want %d", tc.talos, tc.minor, got, err, tc.want)
		}
	}

	if _, err := catalog.CompareMinor("latest", "1.13"); err == nil {
		t.Error("a version that does not parse is not an error")
	}
}
