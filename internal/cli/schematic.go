package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/suggest"
)

// SchematicIDOptions are schematic id's inputs.
type SchematicIDOptions struct {
	Deps *Deps

	Files []string
}

// FileID is the Image Factory ID of one schematic file.
type FileID = app.FileID

const schematicSynopsis = "schematic id FILE..."

func schematicFlags(d *Deps, args []string) (*SchematicIDOptions, error) {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		help := fmt.Sprintf("Usage: talops %s\n\nPrints the Image Factory schematic ID of each file: with one file the ID alone,\nwith several one \"ID  FILE\" line each.\n", schematicSynopsis)

		if len(args) == 0 {
			d.Errf("%s", help)

			return nil, &app.UsageError{Msg: "schematic: a subcommand is required (id)"}
		}

		// Asked for: help is the output, not a complaint.
		if err := d.Out(help); err != nil {
			return nil, err
		}

		return nil, flag.ErrHelp
	}

	if args[0] != "id" {
		return nil, &app.UsageError{Msg: fmt.Sprintf("unknown schematic command %q%s (known: id)", args[0], suggest.DidYouMean(args[0], []string{"id"}))}
	}

	opts := &SchematicIDOptions{Deps: d}

	fs := newFlags(d, "schematic id", schematicSynopsis)
	if err := parseFlags(fs, args[1:]); err != nil {
		return nil, err
	}

	opts.Files = fs.Args()
	if len(opts.Files) == 0 {
		return nil, &app.UsageError{Msg: "schematic id: at least one FILE is required"}
	}

	return opts, nil
}

func runSchematic(_ context.Context, d *Deps, args []string) error {
	opts, err := schematicFlags(d, args)
	if err != nil {
		return err
	}

	ids, err := SchematicID(opts)

	var b strings.Builder

	for _, id := range ids {
		if len(opts.Files) == 1 {
			b.WriteString(id.ID + "\n")
		} else {
			b.WriteString(id.ID + "  " + id.File + "\n")
		}
	}

	if outErr := d.Out(b.String()); outErr != nil {
		return outErr
	}

	return err
}

// SchematicID computes the ID the factory would give every file (see app.SchematicIDs).
func SchematicID(opts *SchematicIDOptions) ([]FileID, error) {
	return app.SchematicIDs(opts.Deps.App(), opts.Files)
}
