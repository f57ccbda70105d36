package kube_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/talops/talops/internal/kube"
)

func TestLeaseName_AValidNameIsKeptAsIs(t *testing.T) {
	t.Parallel()

	if got, want := kube.LeaseName("homelab-1"), "talops-apply-homelab-1"; got != want {
		t.Errorf("LeaseName(homelab-1) = %q, want %q", got, want)
	}
}

func TestLeaseName_EveryClusterNameGivesAValidObjectName(t *testing.T) {
	t.Parallel()

	for _, cluster := range []string{
		"Lab_1", "lab.example.com", "-edge-", "___", "", "héllo wörld", "UPPER",
		strings.Repeat("x", 80), strings.Repeat("a-", 40),
	} {
		name := kube.LeaseName(cluster)

		if !strings.HasPrefix(name, "talops-apply-") {
			t.Errorf("LeaseName(%q) = %q, not under talops-apply-", cluster, name)
		}

		if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
			t.Errorf("LeaseName(%q) = %q, not a valid name: %v", cluster, name, errs)
		}
	}
}

func TestLeaseName_NamesThatSanitizeAlikeGetDifferentLocks(t *testing.T) {
	t.Parallel()

	names := map[string]string{}

	for _, cluster := range []string{"lab-1", "Lab_1", "lab_1", "LAB-1", "lab.1", strings.Repeat("x", 80), strings.Repeat("x", 81)} {
		name := kube.LeaseName(cluster)
		if other, ok := names[name]; ok {
			t.Errorf("clusters %q and %q share the lock %q", other, cluster, name)
		}

		names[name] = cluster
	}
}
