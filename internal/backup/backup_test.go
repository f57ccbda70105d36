package backup_test

import (
	"slices"
	"testing"
	"time"

	"github.com/talops/talops/internal/backup"
)

func TestNames_AreTheManifestsOldestFirstWhateverTheClusterName(t *testing.T) {
	t.Parallel()

	late := backup.Name("a-b", time.Date(2026, 12, 1, 0, 0, 0, 0, time.FixedZone("CET", 3600)))
	early := backup.Name("z", time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC))

	got := backup.Names([]string{late + ".json", late + ".snapshot.age", early + ".json", "notes.json", "z-20261130T000000Z.snapshot.age"})
	if want := []string{early, late}; !slices.Equal(got, want) {
		t.Errorf("Names = %v, want %v", got, want)
	}

	if late != "a-b-20261130T230000Z" {
		t.Errorf("a name is dated in UTC: %s", late)
	}
}

func TestResource_IsTheResourceOfAKubernetesKey(t *testing.T) {
	t.Parallel()

	for key, want := range map[string]string{
		"/registry/configmaps/default/a":                                       "configmaps",
		"/registry/namespaces/default":                                         "namespaces",
		"/registry/apiregistration.k8s.io/apiservices/v1.apps":                 "apiregistration.k8s.io/apiservices",
		"/registry/cilium.io/ciliumnetworkpolicies/default/deny.all":           "cilium.io/ciliumnetworkpolicies",
		"/registry/apiextensions.k8s.io/customresourcedefinitions/x.example.a": "apiextensions.k8s.io/customresourcedefinitions",
		"compact_rev_key": "",
	} {
		got, ok := backup.Resource([]byte(key))
		if got != want || ok != (want != "") {
			t.Errorf("Resource(%q) = %q, %t; want %q", key, got, ok, want)
		}
	}
}
