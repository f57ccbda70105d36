package cli

import (
	"context"
	"flag"
	"fmt"
	"github.com/talops/talops/internal/app"
	"io"
	"slices"
	"strings"
)

// completionShells are the shells completion writes a script for.
var completionShells = []string{"bash", "zsh", "fish"}

// completionSubcommands are the words that follow a command which has subcommands. The
// commands themselves and every flag come from commands() and the commands' own flag sets;
// a test fails when a command makes no flag set and is not listed here.
func completionSubcommands() map[string][]string {
	return map[string][]string{
		"catalog":   {"update"},
		"import":    {"talhelper", "talosctl", "topf"},
		"proxmox":   {"images", "vms"},
		"schematic": {"id"},
	}
}

// complNode is one command line prefix the completion knows ("", "plan", "proxmox images"):
// the words that may follow it and its flags.
type complNode struct {
	Path  string
	Short string
	Subs  []string
	Flags []complFlag
}

// complFlag is a flag of a command; Value says whether it takes a value (the next word is
// then not a command, and the shell completes file names for it).
type complFlag struct {
	Name  string
	Usage string
	Value bool
}

// completionTree is every command line prefix, from the command table and the flag sets
// the commands make when asked for help. The commands run with a cancelled context and
// doors that lead nowhere: -h stops each at its flags.
func completionTree() []complNode {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	root := complNode{Flags: []complFlag{
		{Name: "help", Usage: "print the commands"},
		{Name: "version", Usage: "print the talops version and the embedded release data's span"},
	}}

	var nodes []complNode

	for _, c := range commands() {
		root.Subs = append(root.Subs, c.name)

		switch subs := completionSubcommands()[c.name]; {
		case c.name == "completion":
			nodes = append(nodes, complNode{Path: c.name, Short: c.short, Subs: completionShells})
		case len(subs) > 0:
			nodes = append(nodes, complNode{Path: c.name, Short: c.short, Subs: subs})
			for _, s := range subs {
				nodes = append(nodes, complNode{Path: c.name + " " + s, Flags: probeFlags(ctx, c, s)})
			}
		default:
			nodes = append(nodes, complNode{Path: c.name, Short: c.short, Flags: probeFlags(ctx, c)})
		}
	}

	root.Subs = append(root.Subs, "help")

	return append([]complNode{root}, nodes...)
}

// probeFlags runs a command with -h and returns the flags of the flag sets it made.
func probeFlags(ctx context.Context, c command, path ...string) []complFlag {
	var sets []*flag.FlagSet

	d := &Deps{
		Outside: app.Outside{Getenv: func(string) string { return "" }},
		Stdout:  io.Discard, Stderr: io.Discard,
		FlagSet: func(fs *flag.FlagSet) { sets = append(sets, fs) },
	}

	_ = c.run(ctx, d, append(path, "-h")) // -h ends every command with flag.ErrHelp

	var flags []complFlag

	for _, fs := range sets {
		fs.VisitAll(func(f *flag.Flag) {
			b, ok := f.Value.(interface{ IsBoolFlag() bool })
			flags = append(flags, complFlag{Name: f.Name, Usage: f.Usage, Value: !ok || !b.IsBoolFlag()})
		})
	}

	slices.SortFunc(flags, func(a, b complFlag) int { return strings.Compare(a.Name, b.Name) })

	return flags
}

func runCompletion(_ context.Context, d *Deps, args []string) error {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		return d.Out(completionUsage)
	}

	if len(args) != 1 {
		d.Errf("%s", completionUsage)

		return &app.UsageError{Msg: "completion needs one shell: bash, zsh or fish"}
	}

	tree := completionTree()

	switch args[0] {
	case "bash":
		return d.Out(bashCompletion(tree))
	case "zsh":
		return d.Out(zshCompletion(tree))
	case "fish":
		return d.Out(fishCompletion(tree))
	default:
		return &app.UsageError{Msg: fmt.Sprintf("unknown shell %q (bash, zsh or fish)", args[0])}
	}
}

const completionUsage = `Usage: talops completion bash|zsh|fish

Prints the shell's completion script for talops' commands and flags:
  bash  source <(talops completion bash)          (in ~/.bashrc)
  zsh   source <(talops completion zsh)           (in ~/.zshrc, after compinit)
  fish  talops completion fish > ~/.config/fish/completions/talops.fish
`
