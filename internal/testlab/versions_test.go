package testlab_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/testlab"
)

func TestVersions_AreTheOnesTheLabRuns(t *testing.T) {
	c := testlab.Load(t, testlab.Files(t))

	if c.Spec.TalosVersion != testlab.Talos || c.Spec.KubernetesVersion != testlab.Kubernetes {
		t.Errorf("the lab runs Talos %s, Kubernetes %s; testlab says %s, %s",
			c.Spec.TalosVersion, c.Spec.KubernetesVersion, testlab.Talos, testlab.Kubernetes)
	}
}

func TestAt_MovesOnlyTheVersionsGiven(t *testing.T) {
	for _, tt := range []struct {
		name, talos, kubernetes, wantTalos, wantKubernetes string
	}{
		{"both", "v1.14.1", "v1.37.0", "v1.14.1", "v1.37.0"},
		{"Talos only", "v1.15.0", "", "v1.15.0", testlab.Kubernetes},
		{"Kubernetes only", "", "v1.32.9", testlab.Talos, "v1.32.9"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			files := testlab.At(t, tt.talos, tt.kubernetes)
			c := testlab.Load(t, files)

			if c.Spec.TalosVersion != tt.wantTalos || c.Spec.KubernetesVersion != tt.wantKubernetes {
				t.Errorf("Talos %s, Kubernetes %s; want %s, %s", c.Spec.TalosVersion, c.Spec.KubernetesVersion, tt.wantTalos, tt.wantKubernetes)
			}

			rest := func(s string) string {
				var keep []string
				for _, l := range strings.Split(s, "\n") {
					if !strings.HasPrefix(l, "talosVersion: ") && !strings.HasPrefix(l, "kubernetesVersion: ") {
						keep = append(keep, l)
					}
				}

				return strings.Join(keep, "\n")
			}

			if got, want := rest(string(files["talops.yaml"])), rest(string(testlab.Files(t)["talops.yaml"])); got != want {
				t.Errorf("lines besides the versions changed:\n%s", got)
			}
		})
	}
}
