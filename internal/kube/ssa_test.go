package kube

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestManifestDiff_ASecretShowsWhichKeysChangeNeverAValue(t *testing.T) {
	t.Parallel()

	secret := func(token string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Secret",
			"metadata":   map[string]any{"name": "bootstrap-token-abcdef", "namespace": "kube-system"},
			"stringData": map[string]any{"token-id": "abcdef", "token-secret": token},
		}}
	}

	for name, tc := range map[string]struct {
		before, after *unstructured.Unstructured
		want          []string
	}{
		"created":         {after: secret("0123456789abcdef"), want: []string{"+  token-secret: '***'", "b/v1.Secret/kube-system/bootstrap-token-abcdef"}},
		"a value changed": {before: secret("0123456789abcdef"), after: secret("fedcba9876543210"), want: []string{"-  token-secret: '***'", "+  token-secret: '*** (changed)'"}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()

			diff, err := manifestDiff(tc.before, tc.after)
			if err != nil {
				t.Fatal(err)
			}

			for _, secret := range []string{"0123456789abcdef", "fedcba9876543210"} {
				if strings.Contains(diff, secret) {
					t.Errorf("the diff shows a secret value:\n%s", diff)
				}
			}

			for _, want := range tc.want {
				if !strings.Contains(diff, want) {
					t.Errorf("the diff has no %q:\n%s", want, diff)
				}
			}
		})
	}
}

func TestInventory_KeysAreTalosctlsObjMetadata(t *testing.T) {
	t.Parallel()

	inv := &inventory{keys: map[string]bool{}}

	for _, o := range []map[string]any{
		{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "kube-proxy", "namespace": "kube-system"}},
		{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": map[string]any{"name": "system:kube-proxy"}},
		{"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": map[string]any{"name": "kube-flannel", "namespace": "kube-system"}},
	} {
		inv.add(&unstructured.Unstructured{Object: o})
	}

	for _, want := range []string{
		"kube-system_kube-proxy__ConfigMap",
		"_system__kube-proxy_rbac.authorization.k8s.io_ClusterRoleBinding",
		"kube-system_kube-flannel_apps_DaemonSet",
	} {
		if !inv.keys[want] {
			t.Errorf("inventory keys %v: no %q", inv.keys, want)
		}
	}
}

func TestStage_DefinitionsThenClassesThenConfigThenTheRest(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		apiVersion, kind string
		want             int
	}{
		{"apiextensions.k8s.io/v1", "CustomResourceDefinition", 0},
		{"v1", "Namespace", 0},
		{"rbac.authorization.k8s.io/v1", "ClusterRole", 0},
		{"storage.k8s.io/v1", "StorageClass", 1},
		{"v1", "ConfigMap", 2},
		{"v1", "Secret", 2},
		{"rbac.authorization.k8s.io/v1", "ClusterRoleBinding", 3},
		{"apps/v1", "DaemonSet", 3},
	} {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": tc.apiVersion, "kind": tc.kind}}
		if got := stage(u); got != tc.want {
			t.Errorf("stage of %s %s = %d, want %d", tc.apiVersion, tc.kind, got, tc.want)
		}
	}
}
