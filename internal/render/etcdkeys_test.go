package render_test

import (
	"fmt"
	"testing"

	"github.com/talops/talops/internal/testlab"
)

// cluster.secretboxKeyNames names the bundle's secretbox key in the control plane's
// KubeEtcdEncryptionConfig, in order, every name with the same secret; without it the
// key is Talos' key2.
func TestRender_SecretboxKeyNamesNameTheEtcdEncryptionKey(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		want       []string
	}{
		{"Talos' name by default", "", []string{"key2"}},
		{"the names listed, in order", "  secretboxKeyNames: [key1, key2]\n", []string{"key1", "key2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := testlab.Files(t)
			testlab.Unpin(t, files)
			testlab.SetVersions(t, files, "v1.14.1", "")
			testlab.Edit(t, files, "talops.yaml", "  name: homelab\n", "  name: homelab\n"+tc.line)

			enc := node(t, renderLab(t, files), "k8s-master").Config.K8sEtcdEncryptionConfig()
			if enc == nil {
				t.Fatal("no KubeEtcdEncryptionConfig")
			}

			var names []string

			secrets := map[string]bool{}

			for _, r := range enc.EtcdEncryptionConfig()["resources"].([]any) {
				for _, p := range r.(map[string]any)["providers"].([]any) {
					box, ok := p.(map[string]any)["secretbox"].(map[string]any)
					if !ok {
						continue
					}

					for _, k := range box["keys"].([]any) {
						names = append(names, fmt.Sprint(k.(map[string]any)["name"]))
						secrets[fmt.Sprint(k.(map[string]any)["secret"])] = true
					}
				}
			}

			if fmt.Sprint(names) != fmt.Sprint(tc.want) || len(secrets) != 1 {
				t.Errorf("secretbox keys %v (%d secrets), want %v with one secret", names, len(secrets), tc.want)
			}
		})
	}
}
