package migrate_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/migrate"
)

// A repository with no patch every control plane (or every node) uses gets one, named in
// talops.yaml after the role's own files, every other byte of talops.yaml as it was.
func TestRewrite_AddsAPatchToKeepTheOldDefaultsWhereNoneAppliesToTheRole(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name, talops, want string
	}{
		{
			name:   "no patches section",
			talops: "configVersion: v1.13 # pinned\nnodes: []\n",
			want:   "configVersion: v1.14 # pinned\nnodes: []\npatches:\n  controlplane: [patches/migrated-controlplane.yaml]\n",
		},
		{
			name:   "a block list of the role",
			talops: "configVersion: v1.13\npatches:\n  all: [w.yaml]\n  controlplane:\n    - a.yaml # first\nnodes: []\n",
			want:   "configVersion: v1.14\npatches:\n  all: [w.yaml]\n  controlplane:\n    - a.yaml # first\n    - patches/migrated-controlplane.yaml\nnodes: []\n",
		},
		{
			name:   "a flow list of the role",
			talops: "configVersion: v1.13\npatches:\n  controlplane: [a.yaml] # a\nnodes: []\n",
			want:   "configVersion: v1.14\npatches:\n  controlplane: [a.yaml, patches/migrated-controlplane.yaml] # a\nnodes: []\n",
		},
		{
			name:   "patches without the role",
			talops: "configVersion: v1.13\npatches:\n    all: [w.yaml]\nnodes: []\n",
			want:   "configVersion: v1.14\npatches:\n    controlplane: [patches/migrated-controlplane.yaml]\n    all: [w.yaml]\nnodes: []\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			// a.yaml is used by one of two control planes, w.yaml by every node: neither
			// is every control plane's alone.
			res, err := migrate.Rewrite(migrate.Input{
				From: "v1.13", Target: "v1.14", Talops: []byte(tc.talops), ControlPlanes: 2, Workers: 1,
				Patches: []migrate.Patch{
					{Path: "w.yaml", Data: []byte("machine:\n  sysctls:\n    a: \"1\"\n"), ControlPlanes: 2, Workers: 1},
					{Path: "a.yaml", Data: []byte("machine:\n  sysctls:\n    b: \"1\"\n"), ControlPlanes: 1},
				},
			})
			if err != nil {
				t.Fatal(err)
			}

			files := map[string]string{}
			for _, f := range res.Files {
				files[f.Path] = string(f.Data)
			}

			if files["talops.yaml"] != tc.want {
				t.Errorf("talops.yaml:\n%s\nwant:\n%s", files["talops.yaml"], tc.want)
			}

			added := files["patches/migrated-controlplane.yaml"]
			if len(res.Added) != 1 || res.Added[0] != "patches/migrated-controlplane.yaml" ||
				!strings.Contains(added, "kind: KubeAuthenticationConfig") || !strings.Contains(added, "startupProbes: false") {
				t.Errorf("added %v:\n%s", res.Added, added)
			}
		})
	}
}

func TestRewrite_RefusesToAddAPatchToAFlowMappingOfPatches(t *testing.T) {
	t.Parallel()

	_, err := migrate.Rewrite(migrate.Input{
		From: "v1.13", Target: "v1.14", Talops: []byte("configVersion: v1.13\npatches: {all: [w.yaml]}\n"), ControlPlanes: 1, Workers: 1,
		Patches: []migrate.Patch{{Path: "w.yaml", Data: []byte("machine:\n  sysctls:\n    a: \"1\"\n"), ControlPlanes: 1, Workers: 1}},
	})
	if err == nil || !strings.Contains(err.Error(), "talops.yaml:2: patches: write it as a block mapping") {
		t.Fatalf("err = %v", err)
	}
}
