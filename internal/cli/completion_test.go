package cli_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talops/talops/internal/app"
)

// completeInBash loads talops completion bash into bash and asks it to complete line, the
// last word of which is the one being completed ("talops proxmox " completes an empty word).
func completeInBash(t *testing.T, script, line string) []string {
	t.Helper()

	file := filepath.Join(t.TempDir(), "talops.bash")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}

	words := strings.Fields(line)
	if strings.HasSuffix(line, " ") {
		words = append(words, "")
	}

	var quoted []string
	for _, w := range words {
		quoted = append(quoted, "'"+w+"'")
	}

	cmd := exec.Command("bash", "--norc", "--noprofile", "-c", `source "$1" || exit 1
complete -p talops >/dev/null || exit 1
COMP_WORDS=(`+strings.Join(quoted, " ")+`)
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
_talops
printf '%s\n' "${COMPREPLY[@]}"`, "bash", file)

	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}

	return strings.Fields(string(out))
}

func TestCompletion_BashLoadsAndCompletesCommandsSubcommandsAndFlags(t *testing.T) {
	t.Parallel()

	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}

	h := newHarness(t, nil, nil)
	if err := h.run("completion", "bash"); err != nil {
		t.Fatal(err)
	}

	script := h.stdout.String()

	for _, tc := range []struct {
		line string
		want []string
	}{
		{"talops pl", []string{"plan"}},
		{"talops sch", []string{"schematic", "schematics"}},
		{"talops --v", []string{"--version"}},
		{"talops proxmox ", []string{"images", "vms"}},
		{"talops proxmox images --d", []string{"--dir", "--dry-run"}},
		{"talops catalog update --fi", []string{"--file"}},
		{"talops plan --det", []string{"--detailed-exitcode"}},
		{"talops plan --dir examples/homelab --fo", []string{"--format"}},
		// A flag's value and a command's arguments are files: the shell's own completion.
		{"talops plan --dir ", nil},
		{"talops validate ", nil},
		{"talops completion ", []string{"bash", "zsh", "fish"}},
	} {
		t.Run(tc.line, func(t *testing.T) {
			t.Parallel()

			if got := completeInBash(t, script, tc.line); strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("%q completes to %q, want %q", tc.line, got, tc.want)
			}
		})
	}
}

func TestCompletion_ZshAndFishScripts(t *testing.T) {
	t.Parallel()

	for shell, want := range map[string][]string{
		"zsh": {"bashcompinit", "complete -o default -F _talops talops"},
		"fish": {
			"complete -c talops -n '__fish_use_subcommand' -a plan -d 'show what applying would change on each node'\n",
			"complete -c talops -n '__fish_seen_subcommand_from proxmox; and not __fish_seen_subcommand_from images vms' -a images\n",
			"complete -c talops -n '__fish_seen_subcommand_from plan' -l detailed-exitcode -d ",
			"complete -c talops -n '__fish_seen_subcommand_from proxmox; and __fish_seen_subcommand_from images' -l dir -r -F -d ",
		},
	} {
		h := newHarness(t, nil, nil)
		if err := h.run("completion", shell); err != nil {
			t.Fatal(err)
		}

		for _, w := range want {
			if !strings.Contains(h.stdout.String(), w) {
				t.Errorf("completion %s lacks %q", shell, w)
			}
		}

		if path, err := exec.LookPath(shell); err == nil {
			if out, err := exec.Command(path, "-n", "-c", h.stdout.String()).CombinedOutput(); err != nil {
				t.Errorf("%s -n: %v\n%s", shell, err, out)
			}
		}
	}
}

func TestCompletion_NeedsOneKnownShell(t *testing.T) {
	t.Parallel()

	for _, args := range [][]string{{"completion"}, {"completion", "tcsh"}, {"completion", "bash", "zsh"}} {
		h := newHarness(t, nil, nil)

		var usage *app.UsageError
		if err := h.run(args...); !errors.As(err, &usage) {
			t.Errorf("%q: %v, want a usage error", args, err)
		}

		if h.stdout.Len() != 0 {
			t.Errorf("%q printed a script: %s", args, h.stdout.String())
		}
	}
}
