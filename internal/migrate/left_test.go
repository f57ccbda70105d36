package migrate_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/migrate"
)

func TestRewrite_LeavesWhatHasNoPlaceAndNamesIt(t *testing.T) {
	t.Parallel()

	cases := []struct {
		name, patch, path, reason string
		line                      int
	}{
		{"an install disk selector beside a disk", "machine:\n  install:\n    disk: /dev/sda\n    diskSelector:\n      size: 4GB\n", "machine.install", "beside disk", 2},
		{"a custom CNI", "cluster:\n  network:\n    cni:\n      name: custom\n      urls: [https://lab.internal/cilium.yaml]\n", "cluster.network", "names cannot be the URLs", 2},
		{"discovery keeping the Kubernetes registry", "cluster:\n  discovery:\n    registries:\n      kubernetes:\n        disabled: false\n", "cluster.discovery", "Kubernetes registry", 2},
		// jfroy-flatops' patches/global-05.yaml: the 1.14 documents have no kubelet mounts.
		{"kubelet extra mounts", "machine:\n  kubelet:\n    extraMounts:\n      - destination: /var/openebs/local\n        type: bind\n        source: /var/openebs/local\n        options: [bind, rshared, rw]\n", "machine.kubelet", "extraMounts has no place in the 1.14 documents", 2},
		{"the OIDC signing algorithms", "cluster:\n  apiServer:\n    extraArgs:\n      oidc-signing-algs: RS256\n", "cluster.apiServer.extraArgs", "oidc-signing-algs", 3},
		{"an authorization flag", "cluster:\n  apiServer:\n    extraArgs:\n      authorization-mode: Node,RBAC\n", "cluster.apiServer.extraArgs.authorization-mode", "KubeAuthorizerConfig", 4},
		{"api server volumes", "cluster:\n  apiServer:\n    extraVolumes: []\n", "cluster.apiServer", "extraVolumes", 2},
		{"controller manager volumes", "cluster:\n  controllerManager:\n    extraVolumes: []\n", "cluster.controllerManager", "extraVolumes", 2},
		{"a JSON patch that moves a value", "- op: add\n  path: /machine/nodeLabels/a\n  value: b\n- op: move\n  from: /machine/nodeLabels/a\n  path: /machine/nodeLabels/b\n", "(RFC 6902 patch)", "move operation has no strategic-merge form", 4},
		{"a JSON patch that sets a list item", "- op: replace\n  path: /machine/kernel/modules/0\n  value: {name: nvidia}\n", "(RFC 6902 patch)", "names a list item", 1},
		{"a JSON patch that sets a value twice", "- op: add\n  path: /machine/nodeLabels\n  value: {}\n- op: add\n  path: /machine/nodeLabels/a\n  value: b\n", "(RFC 6902 patch)", "two operations on /machine/nodeLabels/a", 4},
	}

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			got, res := field(t, tc.patch, 1, 0)
			if got != tc.patch {
				t.Errorf("the patch changed:\n%s", got)
			}

			if len(res.Left) != 1 {
				t.Fatalf("left %+v, want one", res.Left)
			}

			l := res.Left[0]
			if l.File != "p.yaml" || l.Line != tc.line || l.Path != tc.path || !strings.Contains(l.Reason, tc.reason) {
				t.Errorf("left %+v, want p.yaml:%d %s saying %q", l, tc.line, tc.path, tc.reason)
			}
		})
	}
}

// TestRewrite_LeavesAControlPlaneSectionInAFileWorkersUse: KubeProxyConfig is refused on
// a worker, so a proxy section in a patch every node uses cannot become one there.
func TestRewrite_LeavesAControlPlaneSectionInAFileWorkersUse(t *testing.T) {
	t.Parallel()

	patch := "cluster:\n  proxy:\n    mode: ipvs\n"

	got, res := field(t, patch, 1, 2)
	if got != patch {
		t.Errorf("the patch changed:\n%s", got)
	}

	if len(res.Left) != 1 || res.Left[0].Path != "cluster.proxy" || res.Left[0].Line != 2 ||
		!strings.Contains(res.Left[0].Reason, "KubeProxyConfig is a document for control planes only and a worker uses this file") {
		t.Errorf("left %+v, want cluster.proxy at line 2, for control planes only", res.Left)
	}
}

func TestRewrite_ChangesOnlyTheConfigVersionLineOfTalopsYAML(t *testing.T) {
	t.Parallel()

	in := "# the lab\ncluster:\n  name: lab # the name\n# pinned\nconfigVersion: v1.13 # kept\nnodes: []\n"

	res, err := migrate.Rewrite(migrate.Input{From: "v1.13", Target: "v1.14", Talops: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}

	want := strings.Replace(in, "v1.13 #", "v1.14 #", 1)
	if len(res.Files) != 1 || res.Files[0].Path != "talops.yaml" || string(res.Files[0].Data) != want {
		t.Fatalf("files %+v, want talops.yaml:\n%s", res.Files, want)
	}
}

func TestRewrite_RefusesATargetWithoutDocuments(t *testing.T) {
	t.Parallel()

	_, err := migrate.Rewrite(migrate.Input{From: "v1.12", Target: "v1.13", Talops: []byte("configVersion: v1.12\n")})
	if err == nil || !strings.Contains(err.Error(), "v1.14 or later") {
		t.Fatalf("err = %v, want a refusal naming v1.14", err)
	}
}

func TestAuthenticationFromFlags_FollowsKubeAPIServersConversion(t *testing.T) {
	t.Parallel()

	cases := []struct {
		name  string
		flags map[string]string
		want  string
	}{
		{"no flag: anonymous on every path, no issuer", map[string]string{}, `{"anonymous":{"enabled":true},"jwt":[]}`},
		{"anonymous off", map[string]string{"anonymous-auth": "false"}, `{"anonymous":{"enabled":false},"jwt":[]}`},
		{
			"a username claim other than email is prefixed with the issuer",
			map[string]string{"oidc-issuer-url": "https://id.example", "oidc-client-id": "k8s"},
			`{"anonymous":{"enabled":true},"jwt":[{"claimMappings":{"username":{"claim":"sub","prefix":"https://id.example#"}},"issuer":{"audiences":["k8s"],"url":"https://id.example"}}]}`,
		},
		{
			"a dash prefix is no prefix; groups and required claims carry over",
			map[string]string{"oidc-issuer-url": "https://id.example", "oidc-client-id": "k8s", "oidc-username-prefix": "-", "oidc-groups-claim": "groups", "oidc-groups-prefix": "oidc:", "oidc-required-claim": "hd=example.com"},
			`{"anonymous":{"enabled":true},"jwt":[{"claimMappings":{"groups":{"claim":"groups","prefix":"oidc:"},"username":{"claim":"sub","prefix":""}},"claimValidationRules":[{"claim":"hd","requiredValue":"example.com"}],"issuer":{"audiences":["k8s"],"url":"https://id.example"}}]}`,
		},
	}

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			got, err := migrate.AuthenticationFromFlags(tc.flags)
			if err != nil {
				t.Fatal(err)
			}

			if s := canonicalJSON(t, got); s != tc.want {
				t.Errorf("got %s\nwant %s", s, tc.want)
			}
		})
	}

	if _, err := migrate.AuthenticationFromFlags(map[string]string{"oidc-issuer-url": "https://id.example"}); err == nil {
		t.Error("an issuer without a client ID converted")
	}
}
