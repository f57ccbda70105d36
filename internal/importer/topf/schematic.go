package topf

import (
	"cmp"
	"path"
	"strings"

	"github.com/talops/talops/internal/importer"
	"github.com/talops/talops/internal/schematic"
)

// schematicOf maps a node's schematicId: an @file becomes a talops schematic (rendered
// for the node when it is a template), the vanilla ID none, another ID a finding, since
// talops names a schematic by its definition and an ID cannot be turned back into one.
// It returns the schematic's name ("" for none) and the ID templates see.
func (im *mapping) schematicOf(c *config, n *node, ctx *patchContext) (string, string) {
	ref := cmp.Or(n.SchematicID, c.SchematicID, schematic.VanillaID)
	line, where := lineOr(n.lines, "schematicId", 0), n.Host

	if n.SchematicID == "" {
		line, where = c.lines["schematicId"], ""
	}

	if !strings.HasPrefix(ref, "@") {
		if ref != schematic.VanillaID {
			im.unsupportedOnce(im.in.File, line, where, "schematicId",
				"talops names a schematic by its definition, which an ID does not give: the node gets the vanilla installer until a schematic file of this ID is named (topf's @file form imports)")
		}

		return "", ref
	}

	rel := path.Clean(strings.TrimPrefix(ref, "@"))

	raw, err := im.in.ReadFile(rel)
	if err != nil {
		im.unsupportedOnce(im.in.File, line, where, "schematicId", "cannot read "+rel+": not imported")

		return "", ref
	}

	if strings.HasSuffix(rel, ".tpl") {
		ctx.SchematicID = ref

		if raw, err = im.tmpl.render(path.Base(rel), raw, ctx); err != nil {
			im.unsupportedOnce(rel, 0, n.Host, "", "the schematic template does not render here ("+importer.OneLine(err)+"); not imported")

			return "", ref
		}
	}

	s, err := schematic.Load(raw)
	if err != nil {
		im.unsupportedOnce(rel, 0, n.Host, "", "not a schematic ("+importer.OneLine(err)+"); not imported")

		return "", ref
	}

	id, err := s.ID()
	if err != nil {
		im.unsupportedOnce(rel, 0, n.Host, "", "no schematic ID ("+importer.OneLine(err)+"); not imported")

		return "", ref
	}

	if id == schematic.VanillaID {
		return "", id
	}

	return im.nameSchematic(rel, raw), id
}

// nameSchematic names a schematic after its file; a template that renders differently
// per node gives name-2, name-3… in the order nodes are listed.
func (im *mapping) nameSchematic(rel string, data []byte) string {
	key := string(data)
	if name, ok := im.schematics[key]; ok {
		return name
	}

	base := path.Base(strings.TrimSuffix(rel, ".tpl"))
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".yaml"), ".yml")
	name := base

	for i := 2; im.repo.HasSchematic(name); i++ {
		name = base + "-" + itoa(i)
	}

	im.schematics[key] = name
	_ = im.repo.AddSchematic(name, data)

	return name
}
