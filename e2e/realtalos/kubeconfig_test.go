//go:build realtalos

package realtalos

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// talops kubeconfig reads the admin kubeconfig a real control plane generates from its
// config, writes it 0600, and prints none of its key.
func TestKubeconfig_FromTheControlPlane(t *testing.T) {
	t.Parallel()

	l := newLab(t, newAddress())
	l.boot(t, false)

	out := filepath.Join(t.TempDir(), "kubeconfig")

	r := l.talops(t, "kubeconfig", "--talosconfig", l.admin, "--out", out)
	if r.code != 0 || r.stdout != "wrote "+out+": the admin kubeconfig of e2e, from cp1\n" {
		t.Fatalf("kubeconfig: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}

	info, err := os.Stat(out)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("kubeconfig file: %v, mode %v", err, info.Mode())
	}

	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}

	var kc struct {
		Clusters []struct {
			Cluster struct {
				Server string `yaml:"server"`
			} `yaml:"cluster"`
		} `yaml:"clusters"`
		Users []struct {
			User map[string]string `yaml:"user"`
		} `yaml:"users"`
	}

	if err := yaml.Unmarshal(data, &kc); err != nil || len(kc.Clusters) != 1 || len(kc.Users) != 1 {
		t.Fatalf("not a kubeconfig of one cluster and one user: %v\n%d bytes", err, len(data))
	}

	if got := kc.Clusters[0].Cluster.Server; got != "https://"+l.address+":6443" {
		t.Errorf("server %q, want the cluster endpoint", got)
	}

	key := kc.Users[0].User["client-key-data"]
	if key == "" || strings.Contains(r.stdout+r.stderr, key) || strings.Contains(r.stdout+r.stderr, key[:16]) {
		t.Errorf("the key is missing, or in the output")
	}
}
