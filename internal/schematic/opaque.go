package schematic

import (
	"fmt"

	"go.yaml.in/yaml/v4"
)

// An opaque schematic file holds only a schematic's ID, `id: <64 hex digits>`: an import
// that met an installer of an ID no file had, and could not ask the factory, keeps the
// ID so talops still names the node's installer (and follows talosVersion). What the
// schematic carries is unknown until the file is filled in.

// opaqueKey is the one key of an opaque schematic file.
const opaqueKey = "id"

// OpaqueError is what Load says of an opaque schematic file: it has an ID and no content
// to load. Callers that only need the ID ask Opaque first.
type OpaqueError struct {
	ID   string
	Line int
}

// Error names the line and says where the content is.
func (e *OpaqueError) Error() string {
	return fmt.Sprintf("line %d: holds only the schematic ID %s, not its content (the Image Factory gives it: GET /schematics/%s)",
		e.Line, e.ID, e.ID)
}

// Opaque returns the ID an opaque schematic file holds, and whether data is one. A
// document with a top-level id that is not a valid opaque file is neither a schematic nor
// opaque: Load says why, at its line.
func Opaque(data []byte) (id string, ok bool) {
	root, err := parseNode(data)
	if err != nil {
		return "", false
	}

	id, named, err := opaqueID(root)

	return id, named && err == nil
}

// opaqueID reads the ID of a document whose top level names id; named is false when it
// does not (an ordinary schematic). err is a *DecodeError at the offending line.
func opaqueID(doc *yaml.Node) (id string, named bool, err error) {
	m := doc
	if m.Kind == yaml.DocumentNode && len(m.Content) == 1 {
		m = m.Content[0]
	}

	if m.Kind != yaml.MappingNode {
		return "", false, nil
	}

	var val *yaml.Node

	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Kind != yaml.ScalarNode || k.Value != opaqueKey {
			continue
		}

		if val != nil {
			return "", true, &DecodeError{Line: k.Line, Column: k.Column, Msg: "id given twice"}
		}

		val = m.Content[i+1]
	}

	if val == nil {
		return "", false, nil
	}

	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Kind != yaml.ScalarNode || k.Value != opaqueKey {
			return "", true, &DecodeError{
				Line: k.Line, Column: k.Column,
				Msg: fmt.Sprintf("%q beside id: a schematic file that holds an ID holds nothing else (keep only id, or remove id and write the schematic)", k.Value),
			}
		}
	}

	if val.Kind != yaml.ScalarNode || !isID(val.Value) {
		return "", true, &DecodeError{
			Line: val.Line, Column: val.Column,
			Msg: fmt.Sprintf("id %q is not a schematic ID (64 lower-case hexadecimal digits)", val.Value),
		}
	}

	return val.Value, true, nil
}
