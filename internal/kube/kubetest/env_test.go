package kubetest

import (
	"strings"
	"testing"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestAssetsDir_KubebuilderAssetsThenRealkubeWorkThenTmp(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name string
		vars map[string]string
		want string
	}{
		{"KUBEBUILDER_ASSETS wins", map[string]string{"KUBEBUILDER_ASSETS": "/opt/k8s", "REALKUBE_WORK": "/w"}, "/opt/k8s"},
		{"REALKUBE_WORK's bin", map[string]string{"REALKUBE_WORK": "/w", "TMPDIR": "/t"}, "/w/bin"},
		{"TMPDIR as build.sh defaults", map[string]string{"TMPDIR": "/t"}, "/t/realkube/bin"},
		{"nothing set", nil, "/tmp/realkube/bin"},
	} {
		if got := AssetsDir(env(tc.vars)); got != tc.want {
			t.Errorf("%s: AssetsDir = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestStart_WithoutBinariesSaysToBuildThem(t *testing.T) {
	t.Parallel()

	dir := t.TempDir()

	_, err := start(env(map[string]string{"KUBEBUILDER_ASSETS": dir}))
	if err == nil {
		t.Fatal("start found a kube-apiserver in an empty directory")
	}

	if !strings.Contains(err.Error(), "build.sh") || !strings.Contains(err.Error(), dir) {
		t.Errorf("error %q does not say where it looked and to run build.sh", err)
	}
}
