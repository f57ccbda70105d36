package render

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/schematic"
	"github.com/talops/talops/internal/yamlpos"
)

// SchematicIDs computes the Image Factory ID of every schematic talops.yaml names; an
// opaque schematic file gives the ID it holds. Errors are *cluster.InputError placed in
// the schematic file.
func SchematicIDs(c *cluster.Cluster) (map[string]string, error) {
	ids := map[string]string{}

	var errs []error

	// Sorted, so that several broken schematics are reported in a stable order.
	for _, name := range slices.Sorted(maps.Keys(c.Spec.Schematics)) {
		rel := c.Spec.Schematics[name].File
		data, _ := c.File(rel)

		if id, ok := schematic.Opaque(data); ok {
			ids[name] = id

			continue
		}

		s, err := schematic.Load(data)
		if err != nil {
			errs = append(errs, SchematicError(c.Path(rel), data, err))

			continue
		}

		id, err := s.ID()
		if err != nil {
			errs = append(errs, fmt.Errorf("schematic %s: %w", name, err))

			continue
		}

		ids[name] = id
	}

	return ids, errors.Join(errs...)
}

// OpaqueSchematic says whether the schematic talops.yaml names name is an opaque file: it
// holds only the ID, so talops knows the node's images but not what they carry.
func OpaqueSchematic(c *cluster.Cluster, name string) bool {
	s, ok := c.Spec.Schematics[name]
	if !ok {
		return false
	}

	data, _ := c.File(s.File)
	_, opaque := schematic.Opaque(data)

	return opaque
}

// SchematicError places an error of schematic.Load of data in the schematic file, as a
// *cluster.InputError naming the line and field.
func SchematicError(file string, data []byte, err error) error {
	var uf *schematic.UnknownFieldError
	if errors.As(err, &uf) {
		field := uf.Field
		if uf.Path != "" {
			field = uf.Path + "." + uf.Field
		}

		return &cluster.InputError{File: file, Line: uf.Line, Field: field, Msg: "unknown field"}
	}

	var de *schematic.DecodeError
	if errors.As(err, &de) {
		field := ""
		if ix, ixErr := yamlpos.Parse(data); ixErr == nil && de.Line > 0 {
			if d := ix.DocAt(de.Line); d >= 0 {
				field = ix.Docs[d].PathAt(de.Line, de.Column)
			}
		}

		return &cluster.InputError{File: file, Line: de.Line, Field: field, Msg: de.Msg}
	}

	return &cluster.InputError{File: file, Msg: err.Error()}
}

// FactoryInstaller returns the installer of each node's schematic from the Image Factory
// (the vanilla schematic for nodes that name none), in the repository talops.yaml names
// for the node (cluster.NodeInstaller): one contract writes it into machine.install.image,
// the other into the UnattendedInstallConfig, from this one name.
func FactoryInstaller(ids map[string]string) Installer {
	return func(c *cluster.Cluster, n cluster.Node) (string, error) {
		id := schematic.VanillaID

		if n.Schematic != "" {
			var ok bool
			if id, ok = ids[n.Schematic]; !ok {
				return "", fmt.Errorf("schematic %q has no ID", n.Schematic)
			}
		}

		return schematic.Installer(c.ImageFactory(), c.NodeInstaller(n, c.Spec.TalosVersion), id, c.Spec.TalosVersion, n.SecureBoot), nil
	}
}
