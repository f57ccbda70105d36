package topf

import (
	"cmp"
	"path"
	"strings"

	"github.com/talops/talops/internal/finding"
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
		if ref == schematic.VanillaID {
			return "", ref
		}

		name, why := im.recoverSchematic(cmp.Or(n.Factory, c.Factory, defaultFactory), ref)
		if name != "" {
			im.repo.ReportOnce(finding.Finding{
				Severity: finding.Info, Code: CodeMapped, File: im.in.File, Line: line, Node: where, Path: "schematicId",
				Message: "the Image Factory gave this ID's schematic (GET /schematics/" + ref + "): it is schematics/" + name + ".yaml, and talops names the installer of it",
			})

			return name, ref
		}

		if name := im.opaqueSchematic(cmp.Or(n.Factory, c.Factory, defaultFactory), ref, why, line, where); name != "" {
			return name, ref
		}

		im.unsupportedOnce(im.in.File, line, where, "schematicId",
			"not a schematic ID (64 lower-case hexadecimal digits), and talops names a schematic by its definition, which an ID does not give ("+why+"): the node gets the vanilla installer until a schematic file of this ID is named (topf's @file form imports)")

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

// recoverSchematic asks the Image Factory at factory (topf's form: an address without a
// scheme) for the schematic of id and names it; "" and why when it cannot.
func (im *mapping) recoverSchematic(factory, id string) (name, why string) {
	if im.in.Recover == nil {
		return "", "import ran --offline, so the Image Factory was not asked for it"
	}

	s, err := im.in.Recover("https://"+strings.TrimSuffix(factory, "/"), id)
	if err != nil {
		return "", "the Image Factory did not give it: " + importer.OneLine(err)
	}

	data, err := s.Marshal()
	if err != nil {
		return "", "its schematic does not encode: " + importer.OneLine(err)
	}

	return im.nameSchematic(importer.RecoveredName(id)+".yaml", append([]byte(importer.RecoveredHeader(id)), data...)), ""
}

// opaqueSchematic keeps an ID the factory did not give (for why) as an opaque schematic, a
// file holding only the ID, and names it: talops then names the installer of that ID, so the
// nodes keep their image and follow talosVersion. "" when id is no schematic ID.
func (im *mapping) opaqueSchematic(factory, id, why string, line int, where string) string {
	base := "https://" + strings.TrimSuffix(factory, "/")

	data := importer.OpaqueSchematic(base, id, why)
	if _, ok := schematic.Opaque(data); !ok {
		return ""
	}

	name := im.nameSchematic(importer.RecoveredName(id)+".yaml", data)

	im.repo.ReportOnce(finding.Finding{
		Severity: finding.Warning, Code: CodeMapped, File: im.in.File, Line: line, Node: where, Path: "schematicId",
		Message: "talops has no schematic of this ID (" + why + "): " + importer.SchematicPath(name) + " holds only the ID (an opaque schematic), and talops names the installer of it, which follows talosVersion; " +
			"talops cannot check its extensions until the file is filled in with what the factory gives for GET " + base + "/schematics/" + id + " (or the import runs online)",
	})

	return name
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
