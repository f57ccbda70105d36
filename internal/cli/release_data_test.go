package cli_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/testlab"
)

// A release newer than every one talops knows of its minor is named as such before the
// guess derived for it.
func TestValidate_AReleaseTalopsDoesNotKnowIsNamedBeforeItsGuess(t *testing.T) {
	t.Parallel()

	files := testlab.Files(t)
	testlab.SetVersions(t, files, "v1.14.8", "")
	h := newHarness(t, files, nil)

	if err := h.run("validate", "--offline", "--dir", "examples/homelab"); err != nil {
		t.Fatalf("validate: %v\n%s", err, h.stdout.String())
	}

	want := "info versions.release-data talosVersion: v1.14.8 is not a release this talops knows (newest known v1.14.7): Talos v1.14.8 is not in this build's extension data"
	if !strings.Contains(h.stdout.String(), want) {
		t.Errorf("output:\n%s\nwant a line with %q", h.stdout.String(), want)
	}
}
