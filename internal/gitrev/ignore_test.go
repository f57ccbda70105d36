package gitrev_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/talops/talops/internal/gitrev"
)

var osFiles = gitrev.Files{ReadFile: os.ReadFile, Lstat: os.Lstat}

// checkIgnore asks the real git whether it would ignore path, from the rules alone.
func checkIgnore(t *testing.T, root, path string) bool {
	t.Helper()

	cmd := exec.Command("git", "-C", root, "check-ignore", "-q", "--no-index", path)
	cmd.Env = []string{"HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH")}

	err := cmd.Run()

	var exit *exec.ExitError

	switch {
	case err == nil:
		return true
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		return false
	default:
		t.Fatalf("git check-ignore %s: %v", path, err)

		return false
	}
}

// Each case is held to git check-ignore itself, and to what it should say.
func TestCheckExposed_AgreesWithGitCheckIgnore(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git to compare with")
	}

	t.Parallel()

	root := t.TempDir()
	git(t, root, "init", "-q")

	write(t, filepath.Join(root, ".gitignore"), `# What talops and talosctl write
/rendered/
talosconfig
kubeconfig*
*.talosconfig
!keep.talosconfig
docs/**/secret.yaml
/anchored.yaml
build/
trailing.yaml   
\#hash.yaml
[!a]bc.yaml
clusters/*/admin-*.yaml
`)
	write(t, filepath.Join(root, "clusters", ".gitignore"), "lab/local/\n!lab/kubeconfig-shared\n")
	write(t, filepath.Join(root, ".git", "info", "exclude"), "*.local\n")

	tests := []struct {
		name    string
		path    string
		dir     bool
		ignored bool
	}{
		{"ANameMatchesAtAnyDepth", "clusters/lab/talosconfig", false, true},
		{"AGlobMatchesTheBasename", "clusters/lab/kubeconfig.yaml", false, true},
		{"ASuffixGlob", "lab.talosconfig", false, true},
		{"ANegationReIncludes", "keep.talosconfig", false, false},
		{"ALaterRuleOfADeeperFileReIncludes", "clusters/lab/kubeconfig-shared", false, false},
		{"AnUnmatchedFileIsNotIgnored", "clusters/lab/admin.yaml", false, false},
		{"AMiddleSlashAnchors", "clusters/lab/admin-1.yaml", false, true},
		{"AnAnchoredGlobDoesNotMatchDeeper", "x/clusters/lab/admin-1.yaml", false, false},
		{"AnAnchoredNameOnlyAtTheRoot", "sub/anchored.yaml", false, false},
		{"AnAnchoredNameAtTheRoot", "anchored.yaml", false, true},
		{"DoubleStarMatchesAnyDirectories", "docs/a/b/secret.yaml", false, true},
		{"DoubleStarMatchesNoDirectory", "docs/secret.yaml", false, true},
		{"ADirectoryRuleIgnoresItsFiles", "sub/build/out.yaml", false, true},
		{"ADirectoryRuleDoesNotMatchAFile", "build", false, false},
		{"ARenderDirectory", "rendered", true, true},
		{"AFileInAnIgnoredDirectory", "rendered/cp1.yaml", false, true},
		{"ADeeperGitignoreIsRelativeToItsDirectory", "clusters/lab/local/kubeconfig.yaml", false, true},
		{"TrailingSpacesAreDropped", "trailing.yaml", false, true},
		{"AnEscapedHashIsAName", "#hash.yaml", false, true},
		{"ANegatedClass", "xbc.yaml", false, true},
		{"ANegatedClassExcludes", "abc.yaml", false, false},
		{"InfoExcludeCounts", "notes.local", false, true},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			abs := filepath.Join(root, filepath.FromSlash(tt.path))

			arg := tt.path
			if tt.dir {
				arg += "/"
			}

			if got := checkIgnore(t, root, arg); got != tt.ignored {
				t.Fatalf("git check-ignore says ignored=%t, the case says %t", got, tt.ignored)
			}

			err := gitrev.CheckExposed(osFiles, abs, tt.dir)

			var exposed *gitrev.ExposedError
			if got := !errors.As(err, &exposed); got != tt.ignored || (err != nil && exposed == nil) {
				t.Errorf("CheckExposed: %v, want ignored=%t", err, tt.ignored)
			}
		})
	}
}

func TestCheckExposed_NamesTheRuleThatWouldIgnoreIt(t *testing.T) {
	t.Parallel()

	root := t.TempDir()
	git(t, root, "init", "-q")

	err := gitrev.CheckExposed(osFiles, filepath.Join(root, "clusters", "lab", "admin.yaml"), false)

	var exposed *gitrev.ExposedError
	if !errors.As(err, &exposed) || exposed.Rule != "/clusters/lab/admin.yaml" || exposed.IgnoreFile != filepath.Join(root, ".gitignore") || exposed.WorkTree != root {
		t.Fatalf("CheckExposed: %+v", err)
	}

	// The rule named, added, ignores it.
	write(t, filepath.Join(root, ".gitignore"), exposed.Rule+"\n")

	if err := gitrev.CheckExposed(osFiles, filepath.Join(root, "clusters", "lab", "admin.yaml"), false); err != nil || !checkIgnore(t, root, "clusters/lab/admin.yaml") {
		t.Errorf("with the rule added: %v", err)
	}
}

func TestCheckExposed_OutsideAWorkTreeAnythingGoes(t *testing.T) {
	t.Parallel()

	if err := gitrev.CheckExposed(osFiles, filepath.Join(t.TempDir(), "lab.talosconfig"), false); err != nil {
		t.Errorf("CheckExposed outside a work tree: %v", err)
	}
}

func TestCheckExposed_ALinkedWorkTreeReadsTheCommonExclude(t *testing.T) {
	t.Parallel()

	main := t.TempDir()
	git(t, main, "init", "-q")
	git(t, main, "commit", "-q", "--allow-empty", "-m", "first")

	linked := filepath.Join(t.TempDir(), "wt")
	git(t, main, "worktree", "add", "-q", linked)
	write(t, filepath.Join(main, ".git", "info", "exclude"), "*.talosconfig\n")

	if err := gitrev.CheckExposed(osFiles, filepath.Join(linked, "lab.talosconfig"), false); err != nil || !checkIgnore(t, linked, "lab.talosconfig") {
		t.Errorf("CheckExposed in a linked work tree: %v", err)
	}

	var exposed *gitrev.ExposedError
	if err := gitrev.CheckExposed(osFiles, filepath.Join(linked, "kubeconfig.yaml"), false); !errors.As(err, &exposed) || exposed.WorkTree != linked {
		t.Errorf("CheckExposed of a file no rule ignores in a linked work tree: %v", err)
	}
}
