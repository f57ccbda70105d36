//go:build renovate

package renovate

import (
	"slices"
	"testing"
)

// TestRenovate_TalosImageInAWorkflowMovesTagAndDigestTogether: the talops image a
// workflow step runs by tag and digest gets the newest tag with that tag's digest, in the
// talops group's branch; the talops.yaml beside it, at the latest 1.13 patch, gets only
// the next minor.
func TestRenovate_TalosImageInAWorkflowMovesTagAndDigestTogether(t *testing.T) {
	factory, reg, cfg := fakes(t)
	factory.ExpectVersions(talosTags...)
	reg.repo("siderolabs/kubelet", kubeletTags...)
	reg.repo("talops/talops", "v0.1.0", "v0.1.1", "v0.2.0")

	const (
		v010 = "sha256:1111111111111111111111111111111111111111111111111111111111111111"
		v020 = "sha256:2222222222222222222222222222222222222222222222222222222222222222"
	)

	reg.digest("talops/talops", "v0.1.0", v010)
	reg.digest("talops/talops", "v0.2.0", v020)

	r := run(t, "actions", cfg)

	type image struct {
		File, Dep, Current, CurrentDigest, NewValue, NewDigest, Branch string
	}

	var got []image

	for _, repo := range r.Repositories {
		for _, pf := range repo.PackageFiles["github-actions"] {
			for _, d := range pf.Deps {
				if d.Datasource != "docker" {
					continue
				}

				got = append(got, image{pf.PackageFile, d.DepName, d.CurrentValue, d.CurrentDigest, "", "", ""})

				for _, u := range d.Updates {
					got = append(got, image{pf.PackageFile, d.DepName, d.CurrentValue, d.CurrentDigest, u.NewValue, u.NewDigest, u.BranchName})
				}
			}
		}
	}

	const workflow = ".github/workflows/talops.yml"

	want := []image{
		{workflow, "ghcr.io/talops/talops", "v0.1.0", v010, "", "", ""},
		{workflow, "ghcr.io/talops/talops", "v0.1.0", v010, "v0.2.0", v020, "renovate/talops"},
	}

	if !slices.Equal(got, want) {
		t.Errorf("the talops image: got\n%+v\nwant\n%+v", got, want)
	}

	assertProposals(t, proposals(t, r), []proposal{
		{"talops.yaml", "ghcr.io/siderolabs/kubelet", "talos-v1.13", "v1.36.4", "", ""},
		{"talops.yaml", "siderolabs/talos", "talos-v1.13", "v1.13.13", "", ""},
		{"talops.yaml", "siderolabs/talos", "talos-v1.13", "v1.13.13", "v1.14.7", "renovate/minor-1.14-talos"},
	})
}
