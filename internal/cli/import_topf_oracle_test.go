//go:build topf

package cli_test

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The topf oracle: the real topf (TOPF, a topf binary; the module proxy does not serve
// topf, so CI cannot build it and this runs by hand) renders each recorded repository afresh, and
// talops' import renders the same, node by node; the recorded topf-render/ the untagged
// test compares with is that same output.
func TestImportTopf_OracleTopfRender(t *testing.T) {
	bin := os.Getenv("TOPF")
	if bin == "" {
		t.Fatal("TOPF must name a topf binary")
	}

	for dir, env := range map[string]map[string]string{"postfinance-example": topfExampleEnv, "schematics": nil} {
		t.Run(dir, func(t *testing.T) {
			src := topfTestdata(dir)

			work := t.TempDir()
			if err := os.CopyFS(work, os.DirFS(src)); err != nil {
				t.Fatal(err)
			}

			out := filepath.Join(t.TempDir(), "topf-render")

			cmd := exec.Command(bin, "--topfconfig", "topf.yaml", "render", "-o", out)
			cmd.Dir = work
			cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}

			for k, v := range env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}

			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("topf render: %v\n%s", err, b)
			}

			h := newDiskHarness(t)
			maps.Copy(h.env, env)

			_, rendered := topfImportAndRender(t, h, src)
			topfCompare(t, rendered, out)
			// The record is topf's output: fresh and recorded are the same configs.
			topfCompare(t, filepath.Join(src, "topf-render"), out)
		})
	}
}
