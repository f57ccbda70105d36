package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/testlab"
)

// Without the real bundle, render writes nothing unless --throwaway says so: configs
// rendered with a throwaway bundle cannot join the cluster.
func TestRender_ThrowawayBundleOnlyWhenAsked(t *testing.T) {
	t.Parallel()

	files := testlab.Files(t)
	testlab.Edit(t, files, "talops.yaml", "secrets: secrets.THROWAWAY.yaml\n", "")

	h := newHarness(t, files, nil)

	err := h.run("render", "--dir", "examples/homelab", "--out", "out")
	if cli.ExitCode(err) != cli.ExitFailure || !strings.HasPrefix(err.Error(), "render needs the cluster's secrets bundle") || strings.Contains(err.Error(), "\n") || len(h.written) != 0 {
		t.Errorf("render without a bundle: exit %d, %v, wrote %d files", cli.ExitCode(err), err, len(h.written))
	}

	h = newHarness(t, files, nil)
	if err := h.run("render", "--dir", "examples/homelab", "--out", "out", "--throwaway"); err != nil {
		t.Fatalf("render --throwaway: %v", err)
	}

	if _, ok := h.written[filepath.Join("out", "k8s-master.yaml")]; !ok || !strings.Contains(h.stderr.String(), "rendered with a throwaway secrets bundle") {
		t.Errorf("render --throwaway wrote %d files, stderr %q", len(h.written), h.stderr.String())
	}
}
