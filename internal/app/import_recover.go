package app

import (
	"context"

	"github.com/talops/talops/internal/importer"
	"github.com/talops/talops/internal/schematic"
)

// schematicRecovery asks the Image Factory for the schematic of an installer ID no file of
// the source has, each factory and ID once; nil (the import says it did not ask) when
// offline or when no factory may be reached.
func schematicRecovery(ctx context.Context, d *Deps, offline bool) importer.Recover {
	if offline || d.ImageFactory == nil {
		return nil
	}

	type answer struct {
		s   *schematic.Schematic
		err error
	}

	asked := map[string]answer{}

	return func(factory, id string) (*schematic.Schematic, error) {
		key := factory + " " + id
		if a, ok := asked[key]; ok {
			return a.s, a.err
		}

		c, err := d.ImageFactory(factory)

		var s *schematic.Schematic
		if err == nil {
			s, err = c.Schematic(ctx, id)
		}

		asked[key] = answer{s, err}

		return s, err
	}
}
