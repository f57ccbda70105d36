package testlab

import (
	"regexp"
	"testing"

	"github.com/talops/talops/internal/cluster"
)

// The releases the reference lab runs: the talosVersion and kubernetesVersion of its
// talops.yaml.
const (
	Talos      = "v1.14.7"
	Kubernetes = "v1.37.1"
)

var versionLine = map[string]*regexp.Regexp{
	"talosVersion":      regexp.MustCompile(`(?m)^talosVersion: .*$`),
	"kubernetesVersion": regexp.MustCompile(`(?m)^kubernetesVersion: .*$`),
}

// SetVersions moves the lab in files to another Talos and Kubernetes release, whatever it
// runs now; "" keeps that one as it is.
func SetVersions(t testing.TB, files cluster.MapFiles, talos, kubernetes string) {
	t.Helper()

	for key, value := range map[string]string{"talosVersion": talos, "kubernetesVersion": kubernetes} {
		if value == "" {
			continue
		}

		re := versionLine[key]
		if !re.Match(files["talops.yaml"]) {
			t.Fatalf("talops.yaml has no %s line", key)
		}

		files["talops.yaml"] = re.ReplaceAll(files["talops.yaml"], []byte(key+": "+value))
	}
}

// At returns a fresh copy of the reference lab on another Talos and Kubernetes release
// ("" keeps the lab's).
func At(t testing.TB, talos, kubernetes string) cluster.MapFiles {
	t.Helper()

	files := Files(t)
	SetVersions(t, files, talos, kubernetes)

	return files
}

// On113 is the reference lab as it ran before its move to 1.14: Talos v1.13.9, Kubernetes
// v1.36.4. For tests about the 1.13 behaviour (the machine.install installer, reboots on
// apply, the 1.13 → 1.14 bump).
func On113(t testing.TB) cluster.MapFiles {
	t.Helper()

	return At(t, "v1.13.9", "v1.36.4")
}
