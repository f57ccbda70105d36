package talhelper

import (
	"reflect"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/schematic"
)

// schematic writes a node's schematic (talhelper's is the Image Factory's own form) to a
// schematic file and returns its name; nodes with the same schematic share one file,
// named after the first of them.
func (im *mapping) schematic(n *yaml.Node, node, at string) string {
	// talhelper reads it into the factory's schematic type, which drops a key it does not
	// know; talops' schematic files are read strictly, so the import drops it too.
	v, ok := im.typed(n, node, at, reflect.TypeFor[schematic.Schematic]())
	if !ok {
		return ""
	}

	data, err := yaml.Marshal(v)
	if err != nil {
		im.repo.Unsupported(n.Line, node, "schematic", "cannot encode; not imported")

		return ""
	}

	if name, ok := im.schematics[string(data)]; ok {
		return name
	}

	im.schematics[string(data)] = node

	if err := im.repo.AddSchematic(node, append([]byte("# The Image Factory schematic of "+node+", from talconfig.yaml.\n"), data...)); err != nil {
		im.repo.Unsupported(n.Line, node, "schematic", err.Error())
	}

	return node
}
