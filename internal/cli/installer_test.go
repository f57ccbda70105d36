package cli_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/testlab"
)

func TestValidate_NodePatchedToTheWrongInstallerIsCaughtAtThePatchLine(t *testing.T) {
	t.Parallel()

	files := testlab.Files(t)

	h := newHarness(t, files, nil)
	readLabFiles(h, files)

	if err := h.run("schematic", "id", "examples/homelab/schematics/base.yaml"); err != nil {
		t.Fatal(err)
	}

	base := strings.TrimSpace(h.stdout.String())

	// The GPU worker pinned to the control plane's installer: its next upgrade would drop
	// the NVIDIA extensions.
	testlab.Edit(t, files, "nodes/k8s-node1.yaml", "machine:\n  kernel:", "machine:\n  install:\n    image: factory.talos.dev/nocloud-installer/"+base+":"+testlab.Talos+"\n  kernel:")

	h = newHarness(t, files, nil)

	err := h.run("validate", "--dir", "examples/homelab")
	if cli.ExitCode(err) != cli.ExitFailure {
		t.Fatalf("exit code %d, want 1", cli.ExitCode(err))
	}

	want := "examples/homelab/nodes/k8s-node1.yaml:6: error installer.mismatch [k8s-node1] machine.install.image: " +
		"factory.talos.dev/nocloud-installer/" + base + ":" + testlab.Talos + " is the installer of schematic base (not gpu); "
	if !strings.HasPrefix(h.stdout.String(), want) {
		t.Errorf("stdout does not start with %q:\n%s", want, h.stdout.String())
	}

	if !strings.HasSuffix(h.stdout.String(), "validate failed: 5 nodes checked, 1 error, 0 warnings, 1 note\n") {
		t.Errorf("stdout: %s", h.stdout.String())
	}
}
