package catalog_test

import (
	"slices"
	"testing"

	"github.com/talops/talops/internal/catalog"
)

func TestSplitPreReleases_KeepsThoseOfTheComingReleaseSkipsThoseAlreadyReleased(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		versions, keep, skips []string
	}{
		{
			name:     "newest minor in alpha, beta and rc",
			versions: []string{"v1.14.2", "v1.15.0-alpha.0", "v1.15.0-beta.1", "v1.15.0-rc.0"},
			keep:     []string{"v1.14.2", "v1.15.0-alpha.0", "v1.15.0-beta.1", "v1.15.0-rc.0"},
		},
		{
			name:     "the release is out",
			versions: []string{"v1.14.0-beta.0", "v1.14.0-rc.1", "v1.14.0", "v1.15.0-alpha.0"},
			keep:     []string{"v1.14.0", "v1.15.0-alpha.0"},
			skips:    []string{"v1.14.0-beta.0", "v1.14.0-rc.1"},
		},
		{
			name:     "malformed tags are left to Update",
			versions: []string{"v1.14", "latest", "v1.14.1"},
			keep:     []string{"v1.14", "latest", "v1.14.1"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keep, skips := catalog.SplitPreReleases(tc.versions)
			if !slices.Equal(keep, tc.keep) || !slices.Equal(skips, tc.skips) {
				t.Errorf("keep %v skip %v, want %v and %v", keep, skips, tc.keep, tc.skips)
			}
		})
	}
}
