package rules

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/schematic"
)

// schematicExtensions notes extension lists that give a schematic another ID than the
// same set chosen in the factory UI: repeated names (the factory keeps them) and an
// order other than the UI's sorted one. The image is the same; the ID, and so every
// installer reference, is not.
func schematicExtensions(in *Input) []finding.Finding {
	c := in.Cluster

	var out []finding.Finding

	for _, name := range slices.Sorted(maps.Keys(c.Spec.Schematics)) {
		rel := c.Spec.Schematics[name].File
		data, _ := c.File(rel)

		s, pos, err := schematic.LoadWithPositions(data)

		var opaque *schematic.OpaqueError
		if errors.As(err, &opaque) {
			out = append(out, opaqueSchematic(c, name, opaque))

			continue
		}

		if err != nil {
			continue // loading the repository reports it
		}

		file := c.Path(rel)
		exts := s.Extensions()

		for _, i := range schematic.RepeatedExtensionIndexes(s) {
			p, _ := pos.Extension(i)
			out = append(out, finding.Finding{
				Severity: finding.Info, Code: CodeSchematicDuplicateExtension, File: file, Line: p.Line,
				Path: fmt.Sprintf("%s[%d]", schematic.PathOfficialExtensions, i),
				Message: fmt.Sprintf("schematic %s lists %s more than once; the factory keeps every copy, so the ID differs from the same set listed once: remove this line",
					name, exts[i]),
			})
		}

		if i := schematic.FirstUnsorted(s); i >= 0 {
			ui := s.WithSortedExtensions()
			ui.Customization.SystemExtensions.OfficialExtensions = slices.Compact(ui.Customization.SystemExtensions.OfficialExtensions)

			id, uiID := in.Schematics[name], ""
			if got, err := ui.ID(); err == nil {
				uiID = got
			}

			p, _ := pos.Extension(i)
			out = append(out, finding.Finding{
				Severity: finding.Info, Code: CodeSchematicUnsorted, File: file, Line: p.Line,
				Path: fmt.Sprintf("%s[%d]", schematic.PathOfficialExtensions, i),
				Message: fmt.Sprintf("schematic %s lists %s after %s; the factory UI sorts extensions, so the same set chosen there has ID %s, not %s. Sorting the list changes the installer of every node on this schematic",
					name, exts[i], exts[i-1], uiID, orNone(id)),
			})
		}
	}

	return out
}

// opaqueSchematic says, once at its file, that a schematic holds only its ID: talops names
// the installer of that ID, and knows nothing of what it carries.
func opaqueSchematic(c *cluster.Cluster, name string, o *schematic.OpaqueError) finding.Finding {
	var nodes []string

	for _, n := range c.Spec.Nodes {
		if n.Schematic == name {
			nodes = append(nodes, n.Name)
		}
	}

	using := "no node uses it"
	if len(nodes) > 0 {
		using = "node " + strings.Join(nodes, ", ")
	}

	return finding.Finding{
		Severity: finding.Info, Code: CodeSchematicOpaque, File: c.Path(c.Spec.Schematics[name].File), Line: o.Line, Path: "id",
		Message: fmt.Sprintf("schematic %s is opaque: the file holds only the ID %s, so talops names its installer but does not know its extensions, and the extension and NVIDIA checks skip what it carries (%s); to fill it in, run the import online, or ask the factory (GET %s/schematics/%s) and replace the file with the schematic it gives",
			name, o.ID, using, c.ImageFactory(), o.ID),
	}
}
