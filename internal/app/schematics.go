package app

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/factory"
	"github.com/talops/talops/internal/images"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/schematic"
)

// SchematicsOptions are what schematics reads, and whether it registers.
type SchematicsOptions struct {
	Dir string
	// Register posts every schematic to the Image Factory and requires the IDs it returns
	// to equal the computed ones. It is the only part that uses the network.
	Register bool
}

// Schematics computes every schematic's ID and every node's installer and boot images,
// without secrets or rendering; with Register it also registers the schematics.
func Schematics(ctx context.Context, d *Deps, opts SchematicsOptions) (*images.Schematics, error) {
	c, err := LoadCluster(d, opts.Dir)
	if err != nil {
		return nil, err
	}

	ids, err := render.SchematicIDs(c)
	if err != nil {
		return nil, err
	}

	out, err := images.Of(c, ids)
	if err != nil {
		return nil, err
	}

	if opts.Register {
		if err := RegisterSchematics(ctx, d, c); err != nil {
			return nil, err
		}

		out.Registered = true
	}

	return out, nil
}

// RegisterSchematics posts every schematic, in name order, to the cluster's factory; an
// opaque one is left out, since its ID came from the factory and talops has nothing to post. A
// factory that gives another ID is an error for that schematic, and the others are
// still tried so that one run names every mismatch; a factory that is down stops the run.
func RegisterSchematics(ctx context.Context, d *Deps, c *cluster.Cluster) error {
	if d.ImageFactory == nil {
		return errors.New("register schematics: no Image Factory client")
	}

	client, err := d.ImageFactory(c.ImageFactory())
	if err != nil {
		return &cluster.InputError{File: c.Path(cluster.FileName), Line: c.Line("imageFactory"), Field: "imageFactory", Msg: err.Error()}
	}

	var errs []error

	for _, name := range slices.Sorted(maps.Keys(c.Spec.Schematics)) {
		if render.OpaqueSchematic(c, name) {
			continue
		}

		s, err := images.LoadSchematic(c, name)
		if err != nil {
			return err
		}

		if _, err := client.RegisterVerified(ctx, s); err != nil {
			err = fmt.Errorf("register schematic %s (%s) with %s: %w", name, c.Path(c.Spec.Schematics[name].File), client.BaseURL(), err)

			var down *factory.UnavailableError
			if errors.As(err, &down) || ctx.Err() != nil {
				return err
			}

			errs = append(errs, err)
		}
	}

	return errors.Join(errs...)
}

// registeredNote says what RegisterSchematics did: how many schematics it posted, and which
// opaque ones it left out.
func registeredNote(c *cluster.Cluster) string {
	var opaque []string

	for _, name := range slices.Sorted(maps.Keys(c.Spec.Schematics)) {
		if render.OpaqueSchematic(c, name) {
			opaque = append(opaque, name)
		}
	}

	note := fmt.Sprintf("registered %s with %s: the factory gives the IDs talops computed", plan.Plural(len(c.Spec.Schematics)-len(opaque), "schematic"), c.ImageFactory())
	if len(opaque) > 0 {
		note += fmt.Sprintf(" (opaque %s not posted: only the ID is known, and the factory has it)", strings.Join(opaque, ", "))
	}

	return note + "\n"
}

// FileID is the Image Factory ID of one schematic file.
type FileID struct {
	File string
	ID   string
}

// SchematicIDs computes the ID the factory would give every file. A file that cannot be
// read or is not a schematic the factory accepts is an error naming its line and field;
// the IDs of the others are still returned.
func SchematicIDs(d *Deps, files []string) ([]FileID, error) {
	var (
		out  []FileID
		errs []error
	)

	for _, file := range files {
		id, err := fileSchematicID(d, file)
		if err != nil {
			errs = append(errs, err)

			continue
		}

		out = append(out, FileID{File: file, ID: id})
	}

	return out, errors.Join(errs...)
}

func fileSchematicID(d *Deps, file string) (string, error) {
	data, err := ReadInputFile(d, file)
	if err != nil {
		return "", err
	}

	if id, ok := schematic.Opaque(data); ok {
		return id, nil
	}

	s, err := schematic.Load(data)
	if err != nil {
		return "", render.SchematicError(file, data, err)
	}

	id, err := s.ID()
	if err != nil {
		return "", &cluster.InputError{File: file, Msg: err.Error()}
	}

	return id, nil
}
