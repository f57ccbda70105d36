package cli

import (
	"context"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/app"
)

// TestCompletion_OffersEveryFlagOfEveryCommand holds the completion to the commands' own
// flag sets: a command that makes none when asked for help must have its subcommands listed
// in completionSubcommands, and every listed subcommand must be one the command knows.
func TestCompletion_OffersEveryFlagOfEveryCommand(t *testing.T) {
	t.Parallel()

	tree := completionTree()
	node := func(path string) *complNode {
		for i := range tree {
			if tree[i].Path == path {
				return &tree[i]
			}
		}

		t.Fatalf("no completion for %q", path)

		return nil
	}

	for _, c := range commands() {
		if !slices.Contains(node("").Subs, c.name) {
			t.Errorf("talops <TAB> does not offer %s", c.name)
		}

		if c.name == "version" || c.name == "completion" {
			continue
		}

		paths := [][]string{nil}
		if subs := completionSubcommands()[c.name]; len(subs) > 0 {
			paths = nil
			for _, s := range subs {
				paths = append(paths, []string{s})
			}
		}

		for _, p := range paths {
			name := strings.Join(append([]string{c.name}, p...), " ")

			var sets []*flag.FlagSet

			d := &Deps{
				Outside: app.Outside{
					Getenv: func(string) string { return "" },
				},
				Stdout:  io.Discard,
				Stderr:  io.Discard,
				FlagSet: func(fs *flag.FlagSet) { sets = append(sets, fs) },
			}

			ctx, cancel := context.WithCancel(context.Background())
			cancel()

			_ = c.run(ctx, d, append(p, "-h"))

			if len(sets) != 1 || sets[0].Name() != name {
				var made []string
				for _, fs := range sets {
					made = append(made, fs.Name())
				}

				t.Errorf("%s -h made flag sets %q, want one named %q: is a subcommand missing from completionSubcommands?", name, made, name)

				continue
			}

			var offered []string
			for _, f := range node(name).Flags {
				offered = append(offered, f.Name)
			}

			sets[0].VisitAll(func(f *flag.Flag) {
				if !slices.Contains(offered, f.Name) {
					t.Errorf("%s: --%s is not offered", name, f.Name)
				}
			})
		}
	}
}
