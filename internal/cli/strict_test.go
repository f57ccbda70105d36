package cli_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/testlab"
)

// --strict treats every warning as an error, talops' own too: a release the embedded data
// does not cover, checked offline, passes with a warning and fails with --strict.
func TestValidate_StrictFailsOnEveryWarning(t *testing.T) {
	t.Parallel()

	files := testlab.At(t, "v1.15.0", "") // the lab pins configVersion v1.13

	h := newHarness(t, files, nil)

	if err := h.run("validate", "--dir", "examples/homelab", "--offline"); err != nil {
		t.Fatalf("without --strict: %v\n%s", err, h.stdout.String())
	}

	if !strings.Contains(h.stdout.String(), "warning") || !strings.Contains(h.stdout.String(), "extension.data-missing") {
		t.Fatalf("no extension.data-missing warning:\n%s", h.stdout.String())
	}

	h = newHarness(t, files, nil)

	err := h.run("validate", "--dir", "examples/homelab", "--offline", "--strict")
	if cli.ExitCode(err) != 1 || !strings.Contains(h.stdout.String(), "error") || !strings.Contains(h.stdout.String(), "extension.data-missing") {
		t.Errorf("with --strict: exit %d, %v\n%s", cli.ExitCode(err), err, h.stdout.String())
	}
}
