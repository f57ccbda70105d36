package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/testlab"
	"github.com/talops/talops/internal/testlab/hostile"
)

// TestAliasBombs_AreRefusedAtTheirLineCheaply puts the alias bomb of 5, 6 and 9 levels in
// every kind of YAML file a command reads and holds the command to one placed error, and
// to what it allocates: not a parallel test, so that the process's count is its own.
func TestAliasBombs_AreRefusedAtTheirLineCheaply(t *testing.T) {
	const allocBudget = 100 << 20

	type entry struct {
		name string
		// setup puts bomb (a YAML value) in the lab's files or in dir, and returns the
		// command to run and the file:line its error must name.
		setup func(t *testing.T, files cluster.MapFiles, dir, bomb string) (args []string, place string)
	}

	validate := []string{"validate", "--offline", "--dir", "examples/homelab"}
	entries := []entry{
		{"talops.yaml", func(t *testing.T, files cluster.MapFiles, _, bomb string) ([]string, string) {
			files["talops.yaml"] = append(files["talops.yaml"], []byte("x-anchors: "+bomb+"\n")...)

			return validate, "talops.yaml:" + lineCount(files["talops.yaml"])
		}},
		{"a strategic merge patch of every node", func(t *testing.T, files cluster.MapFiles, _, bomb string) ([]string, string) {
			testlab.Edit(t, files, "patches/common.yaml", "machine:\n", "machine:\n  kubelet:\n    extraConfig: "+bomb+"\n")

			return validate, "patches/common.yaml:"
		}},
		{"an RFC 6902 patch", func(t *testing.T, files cluster.MapFiles, _, bomb string) ([]string, string) {
			files["patches/ops.yaml"] = []byte("- op: add\n  path: /machine/kubelet/extraConfig\n  value: " + bomb + "\n")
			testlab.Edit(t, files, "talops.yaml", "worker: [patches/worker.yaml]", "worker: [patches/worker.yaml, patches/ops.yaml]")

			return validate, "patches/ops.yaml:3"
		}},
		{"a node's own patch, rendered", func(t *testing.T, files cluster.MapFiles, _, bomb string) ([]string, string) {
			files["nodes/k8s-node2.yaml"] = append(files["nodes/k8s-node2.yaml"], []byte("---\nmachine:\n  kubelet:\n    extraConfig: "+bomb+"\n")...)

			return []string{"render", "--dir", "examples/homelab", "--out", "out"}, "nodes/k8s-node2.yaml:"
		}},
		{"a schematic", func(t *testing.T, files cluster.MapFiles, _, bomb string) ([]string, string) {
			files["schematics/base.yaml"] = append(files["schematics/base.yaml"], []byte("  meta: "+bomb+"\n")...)

			return validate, "schematics/base.yaml:"
		}},
		{"the secrets bundle", func(t *testing.T, files cluster.MapFiles, _, bomb string) ([]string, string) {
			files["secrets.THROWAWAY.yaml"] = append(files["secrets.THROWAWAY.yaml"], []byte("x-anchors: "+bomb+"\n")...)

			return validate, "secrets.THROWAWAY.yaml"
		}},
		{"a machine config given to validate", func(t *testing.T, _ cluster.MapFiles, dir, bomb string) ([]string, string) {
			file := writeTemp(t, dir, "node.yaml", "version: v1alpha1\nmachine:\n  type: worker\n  kubelet:\n    extraConfig: "+bomb+"\n")

			return []string{"validate", file}, "node.yaml:5"
		}},
		{"a talconfig", func(t *testing.T, _ cluster.MapFiles, dir, bomb string) ([]string, string) {
			writeTemp(t, dir, "talconfig.yaml", "clusterName: lab\nendpoint: https://10.0.0.1:6443\nnodes: []\nx: "+bomb+"\n")

			return []string{"import", "talhelper", "--from", dir, "--out", filepath.Join(dir, "out"), "--plaintext-secrets", "--offline"}, "talconfig.yaml:4"
		}},
		{"a topf.yaml", func(t *testing.T, _ cluster.MapFiles, dir, bomb string) ([]string, string) {
			writeTemp(t, dir, "topf.yaml", "kubernetesVersion: 1.35.0\nclusterName: lab\nclusterEndpoint: https://10.0.0.1:6443\nnodes: []\nx: "+bomb+"\n")

			return []string{"import", "topf", "--from", dir, "--out", filepath.Join(dir, "out"), "--plaintext-secrets", "--offline"}, "topf.yaml:5"
		}},
		{"a talosctl controlplane.yaml", func(t *testing.T, _ cluster.MapFiles, dir, bomb string) ([]string, string) {
			writeTemp(t, dir, "controlplane.yaml", "version: v1alpha1\nmachine:\n  type: controlplane\n  kubelet:\n    extraConfig: "+bomb+"\n")

			return []string{"import", "talosctl", "--from", dir, "--out", filepath.Join(dir, "out"), "--plaintext-secrets"}, "controlplane.yaml:5"
		}},
	}

	for _, e := range entries {
		for _, levels := range []int{5, 6, 9} {
			t.Run(fmt.Sprintf("%s/%d levels", e.name, levels), func(t *testing.T) {
				files := testlab.Files(t)
				args, place := e.setup(t, files, t.TempDir(), hostile.AliasBomb(levels))
				h := newHarness(t, files, nil)

				var before, after runtime.MemStats

				runtime.ReadMemStats(&before)
				err := h.run(args...)
				runtime.ReadMemStats(&after)

				if cli.ExitCode(err) != cli.ExitFailure {
					t.Fatalf("exit %d (%v), want %d\n%s%s", cli.ExitCode(err), err, cli.ExitFailure, h.stdout.String(), h.stderr.String())
				}

				out := h.stdout.String() + h.stderr.String()
				if !strings.Contains(out, place) || !strings.Contains(out, "YAML") || !strings.Contains(out, "alias") {
					t.Errorf("output does not place the bomb at %s:\n%s", place, out)
				}

				if a := after.TotalAlloc - before.TotalAlloc; a > allocBudget {
					t.Errorf("allocated %d MiB, want under %d MiB", a>>20, allocBudget>>20)
				}
			})
		}
	}
}

func writeTemp(t *testing.T, dir, name, content string) string {
	t.Helper()

	file := filepath.Join(dir, name)
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}

	return file
}

// lineCount is the number of the last line of data, as text.
func lineCount(data []byte) string {
	return strconv.Itoa(strings.Count(string(data), "\n"))
}
