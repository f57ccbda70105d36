//go:build renovate

package renovate

import (
	"slices"
	"strings"
	"testing"
)

// TestRenovate_TalosImageInAWorkflowMovesTagAndDigestTogether: the talops image a
// workflow step runs by tag and digest gets the newest tag with that tag's digest, and the
// talops Actions, by tag or by commit with the tag beside it, get the newest tag (and its
// commit), all in the talops group's branch; the talops.yaml beside them, at the latest
// 1.13 patch, gets only the next minor.
func TestRenovate_TalosImageInAWorkflowMovesTagAndDigestTogether(t *testing.T) {
	factory, reg, cfg := fakes(t)
	factory.ExpectVersions(talosTags...)
	reg.repo("siderolabs/kubelet", kubeletTags...)
	reg.repo("talops/talops", "v0.1.0", "v0.1.1", "v0.2.0")

	const (
		v010      = "sha256:1111111111111111111111111111111111111111111111111111111111111111"
		v020      = "sha256:2222222222222222222222222222222222222222222222222222222222222222"
		commit010 = "0123456789abcdef0123456789abcdef01234567"
		// commit020 is the commit the fake GitHub's tag v0.2.0 points at.
		commit020 = "fedcba9876543210fedcba9876543210fedcba98"
	)

	reg.digest("talops/talops", "v0.1.0", v010)
	reg.digest("talops/talops", "v0.2.0", v020)

	gh := githubServer(t, map[string][]tag{"talops/talops": {
		{"v0.2.0", commit020, "2026-11-20T10:00:00Z"},
		{"v0.1.1", "1111111111111111111111111111111111111111", "2026-11-10T10:00:00Z"},
		{"v0.1.0", commit010, "2026-11-01T10:00:00Z"},
	}})
	cfg.repo["packageRules"] = append(cfg.repo["packageRules"].([]map[string]any), map[string]any{
		"matchDatasources": []string{"github-tags"},
		"registryUrls":     []string{gh.URL + "/"},
	})
	// Renovate skips GitHub lookups without a token for api.github.com unless told not to
	// warn; the fake needs none.
	cfg.global["githubTokenWarn"] = false
	cfg.global["hostRules"] = append(cfg.global["hostRules"].([]map[string]any), map[string]any{"matchHost": gh.URL, "allowInternal": true})

	r := run(t, "actions", cfg)

	type image struct {
		File, Dep, Current, CurrentDigest, NewValue, NewDigest, Branch string
	}

	var got []image

	for _, repo := range r.Repositories {
		for _, pf := range repo.PackageFiles["github-actions"] {
			for _, d := range pf.Deps {
				if !strings.HasSuffix(d.DepName, "talops/talops") {
					continue // the runner image (ubuntu-24.04): Renovate's own data, no lookup
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
		{workflow, "talops/talops", "v0.1.0", "", "", "", ""},
		// pinDigests: an Action used by tag is bumped with its tag's commit, and pinned to the
		// commit of the tag it has.
		{workflow, "talops/talops", "v0.1.0", "", "v0.2.0", commit020, "renovate/talops"},
		{workflow, "talops/talops", "v0.1.0", "", "v0.1.0", commit010, "renovate/talops"},
		{workflow, "talops/talops", "v0.1.0", commit010, "", "", ""},
		{workflow, "talops/talops", "v0.1.0", commit010, "v0.2.0", commit020, "renovate/talops"},
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
