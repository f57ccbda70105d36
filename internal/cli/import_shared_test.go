package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// sharedPatchesRepo copies the two-cluster fixture into a new directory marked as the
// root of a Git repository, and returns it.
func sharedPatchesRepo(t *testing.T) string {
	t.Helper()

	root := t.TempDir()
	copyTree(t, talhelperTestdata("shared-patches"), root)

	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}

	return root
}

// machineValue is the value at a path below machine: in the v1alpha1 document of a
// rendered config ("" when it has none).
func machineValue(t *testing.T, config []byte, path ...string) string {
	t.Helper()

	dec := yaml.NewDecoder(bytes.NewReader(config))

	for {
		var doc map[string]any
		if err := dec.Decode(&doc); err != nil {
			return ""
		}

		if doc["version"] != "v1alpha1" {
			continue
		}

		v := doc["machine"]
		for _, key := range path {
			m, _ := v.(map[string]any)
			v = m[key]
		}

		if v == nil {
			return ""
		}

		return fmt.Sprint(v)
	}
}

// TestImportTalhelper_SharedPatchesOfARepositoryOfClustersAreImported: each cluster of
// a repository takes the patches it shares with the others from global/: they are copied
// under shared/global/ as they are, and every node renders what they say.
func TestImportTalhelper_SharedPatchesOfARepositoryOfClustersAreImported(t *testing.T) {
	root := sharedPatchesRepo(t)

	for _, tc := range []struct {
		cluster string
		shared  []string
		// want maps a node to the values its config holds, by path below machine.
		want map[string]map[string]string
	}{
		{
			cluster: "home",
			shared:  []string{"global/kubelet.yaml", "global/kubespan.yaml"},
			want: map[string]map[string]string{"home-cp1": {
				"kubelet.extraArgs.rotate-server-certificates": "true",
				"network.kubespan.enabled":                     "true",
				"sysctls.net.core.somaxconn":                   "65535",
			}},
		},
		{
			cluster: "lab",
			shared:  []string{"global/kubelet.yaml", "global/sysctls.yaml"},
			want: map[string]map[string]string{
				"lab-cp1": {"kubelet.extraArgs.rotate-server-certificates": "true", "network.kubespan.enabled": "", "sysctls.vm.max_map_count": ""},
				"lab-w1":  {"kubelet.extraArgs.rotate-server-certificates": "true", "sysctls.vm.max_map_count": "262144"},
			},
		},
	} {
		t.Run(tc.cluster, func(t *testing.T) {
			h := newDiskHarness(t)
			repo, rendered, out := importAndRender(t, h, filepath.Join(root, tc.cluster), "--plaintext-secrets")

			if strings.Contains(out, "import.unsupported") {
				t.Errorf("the import left something out:\n%s", out)
			}

			for _, rel := range tc.shared {
				want := readFile(t, filepath.Join(root, filepath.FromSlash(rel)))
				if got := readFile(t, filepath.Join(repo, "shared", filepath.FromSlash(rel))); !bytes.Equal(got, want) {
					t.Errorf("shared/%s is not the source's %s:\n%s", rel, rel, got)
				}
			}

			for node, values := range tc.want {
				config := readFile(t, filepath.Join(rendered, node+".yaml"))

				for path, want := range values {
					// The keys with dots are the last part: kubelet.extraArgs.<arg>.
					parts := strings.SplitN(path, ".", 3)
					if parts[0] == "sysctls" {
						parts = []string{"sysctls", strings.TrimPrefix(path, "sysctls.")}
					}

					if got := machineValue(t, config, parts...); got != want {
						t.Errorf("%s: machine.%s = %q, want %q", node, path, got, want)
					}
				}
			}
		})
	}
}

// TestImportTalhelper_FilesOutOfTheRepositoryAreRefused: a file named outside the Git
// repository holding the talconfig, by its path or through a symbolic link, refuses the
// import with one line naming it, and nothing is written.
func TestImportTalhelper_FilesOutOfTheRepositoryAreRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		// change makes the fixture at root name a file out of it.
		change func(t *testing.T, root string)
		want   string
	}{
		{
			name: "a path out of the repository",
			change: func(t *testing.T, root string) {
				t.Helper()
				writeTree(t, root, map[string]string{"home/talconfig.yaml": strings.Replace(
					string(readFile(t, filepath.Join(root, "home", "talconfig.yaml"))), "@../global/kubespan.yaml", "@../../outside.yaml", 1)})
			},
			want: "talconfig.yaml:12: global.patches[1]: ../../outside.yaml is outside the Git repository holding the talconfig's directory: the import reads no file outside it",
		},
		{
			name: "a symbolic link out of the repository",
			change: func(t *testing.T, root string) {
				t.Helper()

				outside := writeTree(t, t.TempDir(), map[string]string{"secret.yaml": "machine:\n  sysctls:\n    a: b\n"})
				link := filepath.Join(root, "global", "kubespan.yaml")

				if err := os.Remove(link); err != nil {
					t.Fatal(err)
				}

				if err := os.Symlink(filepath.Join(outside, "secret.yaml"), link); err != nil {
					t.Fatal(err)
				}
			},
			want: filepath.Join("global", "kubespan.yaml") + " is a symbolic link out of the Git repository ",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := sharedPatchesRepo(t)
			tc.change(t, root)

			h := newDiskHarness(t)
			repo := filepath.Join(t.TempDir(), "repo")

			err := h.run("import", "talhelper", "--from", filepath.Join(root, "home"), "--out", repo, "--plaintext-secrets")
			if err == nil {
				t.Fatalf("the import succeeded:\n%s", h.stdout.String())
			}

			if msg := err.Error(); !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") {
				t.Errorf("want one line with %q, got %q", tc.want, msg)
			}

			if _, statErr := os.Stat(repo); !os.IsNotExist(statErr) {
				t.Errorf("the import wrote %s: %v", repo, statErr)
			}
		})
	}
}
