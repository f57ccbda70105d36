//go:build talhelper

package cli_test

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/talops/talops/internal/importer/importtest"
)

// The talhelper oracle: the real talhelper (TALHELPER, built by .ci/run outside this
// module) generates each test repository's configs, and talops' import renders the same,
// node by node; the recorded outputs the other tests use are that same output.
func TestImportTalhelper_OracleTalhelperGenconfig(t *testing.T) {
	bin := os.Getenv("TALHELPER")
	if bin == "" {
		t.Fatal("TALHELPER must name a talhelper binary (.ci/run builds v3.1.16)")
	}

	for _, tc := range talhelperCases {
		t.Run(tc.dir, func(t *testing.T) {
			src := talhelperTestdata(tc.dir)
			out := genconfig(t, bin, src, tc.env)

			h := newDiskHarness(t)
			maps.Copy(h.env, tc.env)

			_, rendered, _ := importAndRender(t, h, src, "--plaintext-secrets")
			compareNodes(t, rendered, out, tc)

			for node, file := range tc.outputs {
				fresh, err := os.ReadFile(filepath.Join(out, file))
				if err != nil {
					t.Fatalf("%s: talhelper wrote no %s: %v", node, file, err)
				}

				recorded, err := os.ReadFile(filepath.Join(src, "talhelper-genconfig", file))
				if err != nil {
					t.Fatal(err)
				}

				diffs, err := importtest.Compare(fresh, recorded)
				if err != nil {
					t.Fatal(err)
				}

				if len(diffs) > 0 {
					t.Errorf("%s: the recorded talhelper-genconfig/%s is not talhelper's output (copy it from a fresh genconfig): %q", node, file, diffs)
				}
			}
		})
	}
}

// genconfig runs talhelper genconfig in a copy of the repository (it reads talenv and
// talsecret files from its working directory) and returns its output directory.
func genconfig(t *testing.T, bin, src string, env map[string]string) string {
	t.Helper()

	work := t.TempDir()
	if err := os.CopyFS(work, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}

	out := filepath.Join(t.TempDir(), "clusterconfig")

	cmd := exec.Command(bin, "genconfig", "--offline-mode", "--out-dir", out)
	cmd.Dir = work
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}

	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}

	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("talhelper genconfig: %v\n%s", err, b)
	}

	return out
}
