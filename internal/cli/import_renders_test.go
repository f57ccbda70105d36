package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTree writes files (slash paths relative to dir) and returns dir.
func writeTree(t *testing.T, dir string, files map[string]string) string {
	t.Helper()

	for rel, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}

		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	return dir
}

// TestImportTalhelper_TemplatedNodeMapsRenderWhetherOrNotTheMapExists: a node whose
// labels or annotations are all templates has no such map once its talhelper patch is
// applied (an empty map is not encoded): the rendered values still land on the node.
func TestImportTalhelper_TemplatedNodeMapsRenderWhetherOrNotTheMapExists(t *testing.T) {
	for _, tc := range []struct{ name, version string }{
		{"1.12 contract", "v1.12.4"},
		{"1.14 contract", "v1.14.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := writeTree(t, t.TempDir(), map[string]string{"talconfig.yaml": "clusterName: lab\nendpoint: https://10.0.0.10:6443\n" +
				"talosVersion: " + tc.version + "\nkubernetesVersion: v1.35.0\nnodes:\n" +
				"  - hostname: cp1\n    ipAddress: 10.0.0.11\n    controlPlane: true\n    installDisk: /dev/sda\n" +
				"  - hostname: w1\n    ipAddress: 10.0.0.12\n    controlPlane: false\n    installDisk: /dev/sda\n" +
				"    nodeAnnotations:\n      disk: \"{{ .MachineConfig.MachineInstall.InstallDisk | base }}\"\n" +
				"    nodeLabels:\n      type: \"{{ .MachineConfig.MachineType }}\"\n"})

			h := newDiskHarness(t)
			_, rendered, _ := importAndRender(t, h, src, "--plaintext-secrets")

			got := string(readFile(t, filepath.Join(rendered, "w1.yaml")))
			for _, want := range []string{"disk: sda", "type: worker"} {
				if !strings.Contains(got, want) {
					t.Errorf("w1's config lacks %q:\n%s", want, got)
				}
			}
		})
	}
}

// TestImportTalhelper_RepositoryThatDoesNotRenderIsRefusedAndNothingWritten: a patch
// the import copies as it is, and Talos refuses, fails the import at the file's line,
// before any file is written.
func TestImportTalhelper_RepositoryThatDoesNotRenderIsRefusedAndNothingWritten(t *testing.T) {
	src := writeTree(t, t.TempDir(), map[string]string{
		"talconfig.yaml": "clusterName: lab\nendpoint: https://10.0.0.10:6443\ntalosVersion: v1.12.4\nkubernetesVersion: v1.35.0\n" +
			"nodes:\n  - hostname: cp1\n    ipAddress: 10.0.0.11\n    controlPlane: true\n    installDisk: /dev/sda\n" +
			"patches:\n  - \"@patches/bad.yaml\"\n",
		"patches/bad.yaml": "- op: replace\n  path: /machine/no/such/path\n  value: 1\n",
	})

	h := newDiskHarness(t)
	repo := filepath.Join(t.TempDir(), "repo")

	err := h.run("import", "talhelper", "--from", src, "--out", repo, "--plaintext-secrets")
	if err == nil {
		t.Fatalf("the import succeeded:\n%s", h.stdout.String())
	}

	if want := filepath.Join(repo, "patches", "bad.yaml") + ":2: "; !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "nothing was written") {
		t.Errorf("want the refusal placed at %s, got: %v", want, err)
	}

	if _, statErr := os.Stat(repo); !os.IsNotExist(statErr) {
		t.Errorf("the import wrote %s: %v", repo, statErr)
	}
}
