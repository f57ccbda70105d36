package suggest_test

import (
	"testing"

	"github.com/talops/talops/internal/suggest"
)

func TestClosest_ATypoFindsTheNameAndAStrangerFindsNothing(t *testing.T) {
	t.Parallel()

	names := []string{"k8s-master", "k8s-node1", "k8s-node2", "plan", "apply", "kubernetesVersion", "talosVersion"}

	for _, tc := range []struct{ word, want string }{
		{"k8s-nod1", "k8s-node1"},
		{"k8s-mastr", "k8s-master"},
		{"aply", "apply"},
		{"plna", "plan"},
		{"kubernetesversion", "kubernetesVersion"},
		{"talosVerison", "talosVersion"},
		{"gpu-box", ""},
		{"x", ""},
		{"k8s-node1", ""}, // a name that exists is no typo
	} {
		if got := suggest.Closest(tc.word, names); got != tc.want {
			t.Errorf("Closest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}

func TestDidYouMean_SaysNothingWithoutACandidate(t *testing.T) {
	t.Parallel()

	if got := suggest.DidYouMean("aply", []string{"apply"}); got != "; did you mean apply?" {
		t.Errorf("got %q", got)
	}

	if got := suggest.DidYouMean("zzz", []string{"apply"}); got != "" {
		t.Errorf("got %q", got)
	}
}

func FuzzClosest_NeverPanicsAndOnlyReturnsACandidate(f *testing.F) {
	f.Add("k8s-nod1", "k8s-node1")
	f.Add("", "é")

	f.Fuzz(func(t *testing.T, word, candidate string) {
		if got := suggest.Closest(word, []string{candidate}); got != "" && got != candidate {
			t.Errorf("Closest returned %q, not a candidate", got)
		}
	})
}
