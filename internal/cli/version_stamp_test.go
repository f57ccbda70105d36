package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talops/talops/internal/testlab"
)

// TestVersion_ReleaseBuildsStampTheVariableTalopsReads: -ldflags -X on a name that does not
// exist is silently ignored, and the release would say dev. The builds name this package's
// Version, which this test reads, so renaming it fails here.
func TestVersion_ReleaseBuildsStampTheVariableTalopsReads(t *testing.T) {
	t.Parallel()

	const stamp = "-X github.com/talops/talops/internal/cli.Version="

	if Version != devVersion {
		t.Errorf("an unstamped build says %q, want %q", Version, devVersion)
	}

	for _, file := range []string{".goreleaser.yaml", "Dockerfile"} {
		data, err := os.ReadFile(filepath.Join(testlab.Root(), file))
		if err != nil {
			t.Fatal(err)
		}

		if !strings.Contains(string(data), stamp) {
			t.Errorf("%s does not stamp the version with %s", file, stamp)
		}
	}
}
