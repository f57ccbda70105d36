//go:build renovate

package renovate

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/factory/factorytest"
)

// talosTags are the Talos releases the Image Factory lists (GET /versions), as the
// real one lists them: every tag, prereleases included, oldest first.
var talosTags = []string{
	"v1.12.0", "v1.12.1", "v1.12.2", "v1.12.3", "v1.12.4", "v1.12.5", "v1.12.6", "v1.12.7",
	"v1.12.8", "v1.12.9", "v1.12.10", "v1.12.11",
	"v1.13.0-alpha.0", "v1.13.0-beta.0", "v1.13.0-rc.0",
	"v1.13.0", "v1.13.1", "v1.13.2", "v1.13.3", "v1.13.4", "v1.13.5", "v1.13.6", "v1.13.7",
	"v1.13.8", "v1.13.9", "v1.13.10", "v1.13.11", "v1.13.12", "v1.13.13",
	"v1.14.0-alpha.0", "v1.14.0-alpha.1", "v1.14.0-alpha.2", "v1.14.0-beta.0", "v1.14.0-beta.1", "v1.14.0-rc.1",
	"v1.14.0", "v1.14.1", "v1.14.2", "v1.14.3", "v1.14.4", "v1.14.5", "v1.14.6", "v1.14.7",
	"v1.15.0-alpha.1", "v1.15.0-beta.1",
}

// kubeletTags are the kubelet image's tags on ghcr.io/siderolabs/kubelet, plus one from
// the future.
var kubeletTags = []string{
	"v1.35.0", "v1.35.1", "v1.35.2",
	"v1.36.0", "v1.36.1", "v1.36.2", "v1.36.3", "v1.36.4",
	"v1.37.0-rc.0", "v1.37.0", "v1.37.1",
	// Not published yet: a Kubernetes no Talos release supports, which must never be offered.
	"v1.38.0",
}

// fakes starts the Image Factory and the registry fakes and returns the test's
// renovate.json: the preset by URL, its lookups pointed at the fakes.
func fakes(t *testing.T) (*factorytest.Server, *registry, config) {
	t.Helper()

	factory := factorytest.New(t)
	reg := newRegistry(t)
	preset := presetServer(t)

	repo := map[string]any{
		"extends": []string{preset},
		// Renovate merges customDatasources one level deep: the test restates the preset's
		// datasource whole, with only its URL changed.
		"customDatasources": map[string]any{"talos-image-factory": presetDatasource(t, "talos-image-factory", factory.URL()+"/versions")},
		"packageRules": []map[string]any{{
			"matchDatasources":    []string{"docker"},
			"matchPackageNames":   []string{"ghcr.io/**"},
			"overridePackageName": "{{{replace 'ghcr.io/' '' packageName}}}",
			"registryUrls":        []string{reg.srv.URL},
		}},
	}

	// Loopback hosts are "internal": Renovate warns before reading configuration or
	// versions from them unless a host rule of the administrator's own configuration
	// allows it, and refuses them under internalHostAccess=block, which the test sets so
	// that only the fakes are reachable.
	global := map[string]any{
		"internalHostAccess": "block",
		"hostRules": []map[string]any{
			{"matchHost": factory.URL(), "allowInternal": true},
			{"matchHost": reg.srv.URL, "allowInternal": true},
			{"matchHost": strings.TrimSuffix(preset, "/talos.json5"), "hostType": "preset", "allowInternal": true},
		},
	}

	return factory, reg, config{global: global, repo: repo}
}

// TestRenovate_ReferenceLabBehind: the reference lab two Talos patches behind gets the
// latest 1.13 patch and, as a separate update, the next minor at its latest patch; its
// Kubernetes gets the latest 1.36 patch and not 1.37, which Talos 1.13 cannot run.
func TestRenovate_ReferenceLabBehind(t *testing.T) {
	factory, reg, cfg := fakes(t)
	factory.ExpectVersions(talosTags...)
	reg.repo("siderolabs/kubelet", kubeletTags...)

	got := proposals(t, run(t, "lab", cfg))

	want := []proposal{
		{"talops.yaml", "ghcr.io/siderolabs/kubelet", "talos-v1.13", "v1.36.1", "", ""},
		{"talops.yaml", "ghcr.io/siderolabs/kubelet", "talos-v1.13", "v1.36.1", "v1.36.4", "renovate/patch-kubernetes"},
		{"talops.yaml", "siderolabs/talos", "talos-v1.13", "v1.13.7", "", ""},
		{"talops.yaml", "siderolabs/talos", "talos-v1.13", "v1.13.7", "v1.13.13", "renovate/patch-talos"},
		{"talops.yaml", "siderolabs/talos", "talos-v1.13", "v1.13.7", "v1.14.7", "renovate/minor-1.14-talos"},
	}

	assertProposals(t, got, want)
}

// TestRenovate_TwoClustersOneTalosPullRequestPerStep: in a repository of two clusters,
// the Talos patches of both land in one branch (one pull request), and each cluster's
// next minor is a branch of its own; the 1.12 cluster is not offered 1.14, and each
// cluster's Kubernetes stays within its own Talos' range, whichever key comes first. The
// installers the clusters' patches still carry move in the same branches as their
// talosVersion, and the vanilla installer, not published from 1.14, stays on 1.13.
func TestRenovate_TwoClustersOneTalosPullRequestPerStep(t *testing.T) {
	factory, reg, cfg := fakes(t)
	factory.ExpectVersions(talosTags...)
	reg.repo("siderolabs/kubelet", kubeletTags...)

	got := proposals(t, run(t, "multi", cfg))

	want := []proposal{
		{"clusters/core/talops.yaml", "ghcr.io/siderolabs/kubelet", "talos-v1.12", "v1.35.0", "", ""},
		{"clusters/core/talops.yaml", "ghcr.io/siderolabs/kubelet", "talos-v1.12", "v1.35.0", "v1.35.2", "renovate/patch-kubernetes"},
		{"clusters/core/talops.yaml", "siderolabs/talos", "talos-v1.12", "v1.12.9", "", ""},
		{"clusters/core/talops.yaml", "siderolabs/talos", "talos-v1.12", "v1.12.9", "v1.12.11", "renovate/patch-talos"},
		{"clusters/core/talops.yaml", "siderolabs/talos", "talos-v1.12", "v1.12.9", "v1.13.13", "renovate/minor-1.13-talos"},
		{"clusters/core/patches/install.yaml", "siderolabs/talos", "talos-v1.12", "v1.12.9", "", ""},
		{"clusters/core/patches/install.yaml", "siderolabs/talos", "talos-v1.12", "v1.12.9", "v1.12.11", "renovate/patch-talos"},
		{"clusters/core/patches/install.yaml", "siderolabs/talos", "talos-v1.12", "v1.12.9", "v1.13.13", "renovate/minor-1.13-talos"},
		{"clusters/edge/patches/install.yaml", "siderolabs/talos", "talos-v1.13", "v1.13.9", "", ""},
		{"clusters/edge/patches/install.yaml", "siderolabs/talos", "talos-v1.13", "v1.13.9", "v1.13.13", "renovate/patch-talos"},
		{"clusters/edge/talops.yml", "ghcr.io/siderolabs/kubelet", "talos-v1.13", "v1.36.3", "", ""},
		{"clusters/edge/talops.yml", "ghcr.io/siderolabs/kubelet", "talos-v1.13", "v1.36.3", "v1.36.4", "renovate/patch-kubernetes"},
		{"clusters/edge/talops.yml", "siderolabs/talos", "talos-v1.13", "v1.13.9", "", ""},
		{"clusters/edge/talops.yml", "siderolabs/talos", "talos-v1.13", "v1.13.9", "v1.13.13", "renovate/patch-talos"},
		{"clusters/edge/talops.yml", "siderolabs/talos", "talos-v1.13", "v1.13.9", "v1.14.7", "renovate/minor-1.14-talos"},
	}

	assertProposals(t, got, want)
}
