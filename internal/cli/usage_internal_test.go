package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"github.com/talops/talops/internal/app"
	"strings"
	"testing"
)

// TestUsage_HelpIsOutputAndNamesEveryFlag: -h prints a command's help on stdout (it was
// asked for) and exits 0, its usage line names every flag the command has, and a command
// without flags prints no empty "Flags:" heading.
func TestUsage_HelpIsOutputAndNamesEveryFlag(t *testing.T) {
	t.Parallel()

	for _, n := range completionTree() {
		if n.Path == "" || n.Path == "completion" || len(completionSubcommands()[n.Path]) > 0 {
			continue
		}

		t.Run(n.Path, func(t *testing.T) {
			t.Parallel()

			var stdout, stderr bytes.Buffer

			d := &Deps{Outside: app.Outside{Getenv: func(string) string { return "" }}, Stdout: &stdout, Stderr: &stderr}

			err := Run(context.Background(), d, append(strings.Fields(n.Path), "-h"))
			if ExitCode(err) != ExitOK {
				t.Fatalf("-h exits %d (%v), want 0", ExitCode(err), err)
			}

			if stderr.Len() > 0 {
				t.Errorf("-h wrote to stderr:\n%s", stderr.String())
			}

			usage, _, _ := strings.Cut(stdout.String(), "\n")
			if !strings.HasPrefix(usage, "Usage: talops "+n.Path) {
				t.Fatalf("first line %q is not the usage of %s", usage, n.Path)
			}

			for _, f := range n.Flags {
				if !strings.Contains(usage, "--"+f.Name) {
					t.Errorf("usage line %q misses --%s", usage, f.Name)
				}
			}

			if len(n.Flags) == 0 && strings.Contains(stdout.String(), "Flags:") {
				t.Errorf("a command without flags prints a Flags: heading:\n%s", stdout.String())
			}
		})
	}
}

// TestUsage_UnknownFlagIsOneLine: a flag the command does not have is one error line
// naming it and where the help is, not the error twice and the whole help.
func TestUsage_UnknownFlagIsOneLine(t *testing.T) {
	t.Parallel()

	var stdout, stderr bytes.Buffer

	d := &Deps{Outside: app.Outside{Getenv: func(string) string { return "" }}, Stdout: &stdout, Stderr: &stderr}

	err := Run(context.Background(), d, []string{"validate", "--bogus"})

	var usage *app.UsageError
	if !errors.As(err, &usage) {
		t.Fatalf("error %v is not a usage error", err)
	}

	if got, want := stderr.String(), "talops: flag provided but not defined: -bogus (run talops validate -h)\n"; got != want {
		t.Errorf("stderr = %q, want %q", got, want)
	}

	if stdout.Len() > 0 {
		t.Errorf("stdout = %q, want nothing", stdout.String())
	}

	if errors.Is(err, flag.ErrHelp) {
		t.Error("an unknown flag is not a request for help")
	}
}

// TestUsage_GroupHelpExitsZero: the commands that only group others print their help on
// stdout and exit 0 when asked for it, and complain on stderr with a usage error when
// called bare.
func TestUsage_GroupHelpExitsZero(t *testing.T) {
	t.Parallel()

	for _, group := range []string{"catalog", "proxmox", "schematic"} {
		t.Run(group, func(t *testing.T) {
			t.Parallel()

			var stdout, stderr bytes.Buffer

			d := &Deps{Outside: app.Outside{Getenv: func(string) string { return "" }}, Stdout: &stdout, Stderr: &stderr}

			if err := Run(context.Background(), d, []string{group, "--help"}); ExitCode(err) != ExitOK {
				t.Fatalf("%s --help exits %d (%v)", group, ExitCode(err), err)
			}

			if !strings.HasPrefix(stdout.String(), "Usage: talops "+group) || stderr.Len() > 0 {
				t.Errorf("%s --help: stdout %q, stderr %q", group, stdout.String(), stderr.String())
			}

			stdout.Reset()

			var usage *app.UsageError
			if err := Run(context.Background(), d, []string{group}); !errors.As(err, &usage) {
				t.Errorf("bare %s: %v, want a usage error", group, err)
			}

			if stdout.Len() > 0 || !strings.Contains(stderr.String(), "Usage: talops "+group) {
				t.Errorf("bare %s: stdout %q, stderr %q", group, stdout.String(), stderr.String())
			}
		})
	}
}

// TestImportFlags_SchematicIsRepeatableForTalhelperOnly: --schematic FILE collects every
// file in order, and only import talhelper has it.
func TestImportFlags_SchematicIsRepeatableForTalhelperOnly(t *testing.T) {
	t.Parallel()

	d := &Deps{Outside: app.Outside{Getenv: func(string) string { return "" }}, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}

	opts, err := importFlags(d, []string{"talhelper", "--from", "talos", "--out", "cluster", "--plaintext-secrets", "--schematic", "a.yaml", "--schematic", "images/b.yaml"})
	if err != nil {
		t.Fatal(err)
	}

	if got := strings.Join(opts.Schematics, " "); got != "a.yaml images/b.yaml" {
		t.Errorf("Schematics = %q, want both files in order", got)
	}

	if _, err := importFlags(d, []string{"topf", "--from", "topf.yaml", "--out", "cluster", "--schematic", "a.yaml"}); err == nil {
		t.Error("import topf accepted --schematic")
	}
}

// TestImportFlags_TalosVersionIsBoundForTalhelperAndTopf: --talos-version V lands in
// app.ImportOptions as given, for the two sources that may name no release; talosctl has
// no such flag, and a value that is no Talos release is a usage error.
func TestImportFlags_TalosVersionIsBoundForTalhelperAndTopf(t *testing.T) {
	t.Parallel()

	d := &Deps{Outside: app.Outside{Getenv: func(string) string { return "" }}, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}

	for _, tc := range []struct {
		name string
		args []string
		// want is the option bound; err a part of the usage error ("": none).
		want, err string
	}{
		{name: "talhelper", args: []string{"talhelper", "--from", "talos", "--out", "cluster", "--talos-version", "v1.13.8"}, want: "v1.13.8"},
		{name: "topf, without the v", args: []string{"topf", "--from", "topf.yaml", "--out", "cluster", "--talos-version", "1.14.1"}, want: "1.14.1"},
		{name: "topf, not given", args: []string{"topf", "--from", "topf.yaml", "--out", "cluster"}},
		{name: "not a release", args: []string{"topf", "--from", "topf.yaml", "--out", "cluster", "--talos-version", "latest"}, err: "--talos-version: "},
		{name: "talosctl has none", args: []string{"talosctl", "--from", "dir", "--out", "cluster", "--talos-version", "v1.13.8"}, err: "talos-version"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts, err := importFlags(d, tc.args)

			if tc.err != "" {
				var usage *app.UsageError
				if !errors.As(err, &usage) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("want a usage error with %q, got %v", tc.err, err)
				}

				return
			}

			if err != nil {
				t.Fatal(err)
			}

			if opts.TalosVersion != tc.want {
				t.Errorf("TalosVersion = %q, want %q", opts.TalosVersion, tc.want)
			}
		})
	}
}
