package github_test

import (
	"context"
	"strings"
	"testing"

	"github.com/talops/talops/internal/github/githubtest"
)

func TestUpdateFile_CommitsOverTheBlobItRead(t *testing.T) {
	s := githubtest.New(t, "lab", "infra", 7)
	// Longer than one 60-character line of the contents API's base64.
	old := []byte("nvidia:\n  flavour: lts\n  driver: \"580.173.02\"   # exact, moved with Talos\n")
	s.AddFile("renovate/patch-talos", "clusters/lab/talops.yaml", old)
	c := client(t, s)
	ctx := context.Background()

	f, err := c.File(ctx, "lab", "infra", "clusters/lab/talops.yaml", "renovate/patch-talos")
	if err != nil || string(f.Data) != string(old) {
		t.Fatalf("File = %q, %v", f.Data, err)
	}

	sha, err := c.UpdateFile(ctx, "lab", "infra", "clusters/lab/talops.yaml", "renovate/patch-talos", "move the pin", []byte("new\n"), f.SHA)
	if err != nil || sha != s.Commits()[0].SHA {
		t.Fatalf("UpdateFile = %q, %v", sha, err)
	}

	if got := string(s.File("renovate/patch-talos", "clusters/lab/talops.yaml")); got != "new\n" {
		t.Errorf("branch file = %q", got)
	}
}

// A branch that moved since the file was read (Renovate rebased it) is not overwritten:
// GitHub answers 409, and the error says what was being done.
func TestUpdateFile_RefusesToOverwriteAChangeMadeSinceItWasRead(t *testing.T) {
	s := githubtest.New(t, "lab", "infra", 7)
	s.AddFile("renovate/patch-talos", "talops.yaml", []byte("a\n"))
	c := client(t, s)
	ctx := context.Background()

	f, err := c.File(ctx, "lab", "infra", "talops.yaml", "renovate/patch-talos")
	if err != nil {
		t.Fatal(err)
	}

	s.AddFile("renovate/patch-talos", "talops.yaml", []byte("b\n"))

	_, err = c.UpdateFile(ctx, "lab", "infra", "talops.yaml", "renovate/patch-talos", "move the pin", []byte("c\n"), f.SHA)
	if err == nil || !strings.HasPrefix(err.Error(), "commit talops.yaml to renovate/patch-talos: GitHub answered 409: talops.yaml does not match ") {
		t.Errorf("error %v", err)
	}

	if got := string(s.File("renovate/patch-talos", "talops.yaml")); got != "b\n" || len(s.Commits()) != 0 {
		t.Errorf("branch file = %q, commits %v", got, s.Commits())
	}
}

func TestFile_SaysWhenTheBranchHasNoSuchFile(t *testing.T) {
	s := githubtest.New(t, "lab", "infra", 7)

	_, err := client(t, s).File(context.Background(), "lab", "infra", "clusters/lab/talops.yaml", "renovate/patch-talos")
	if err == nil || err.Error() != "read clusters/lab/talops.yaml on renovate/patch-talos: GitHub answered 404: Not Found" {
		t.Errorf("error %v", err)
	}
}
