package yamlpos

import (
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// Unknown is a key that the target type has no field for.
type Unknown struct {
	Path string
	Line int
}

// UnknownFields walks n against the yaml tags of typ and returns every key
// typ does not declare, with its path and line. Maps accept any key.
func UnknownFields(n *yaml.Node, typ reflect.Type) []Unknown {
	var out []Unknown

	unknownFields(n, typ, "", &out, 0)

	return out
}

func unknownFields(n *yaml.Node, typ reflect.Type, prefix string, out *[]Unknown, depth int) {
	if depth > maxDepth || n == nil {
		return
	}

	if n.Kind == yaml.DocumentNode {
		for _, c := range n.Content {
			unknownFields(c, typ, prefix, out, depth+1)
		}

		return
	}

	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}

	switch {
	case n.Kind == yaml.MappingNode && typ.Kind() == reflect.Struct:
		fields := yamlFields(typ)

		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := join(prefix, k.Value)

			ft, ok := fields[k.Value]
			if !ok {
				*out = append(*out, Unknown{Path: p, Line: k.Line})

				continue
			}

			unknownFields(v, ft, p, out, depth+1)
		}
	case n.Kind == yaml.MappingNode && typ.Kind() == reflect.Map:
		for i := 0; i+1 < len(n.Content); i += 2 {
			unknownFields(n.Content[i+1], typ.Elem(), join(prefix, n.Content[i].Value), out, depth+1)
		}
	case n.Kind == yaml.SequenceNode && typ.Kind() == reflect.Slice:
		for i, item := range n.Content {
			unknownFields(item, typ.Elem(), prefix+"["+strconv.Itoa(i)+"]", out, depth+1)
		}
	}
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}

	return prefix + "." + key
}

func yamlFields(typ reflect.Type) map[string]reflect.Type {
	fields := map[string]reflect.Type{}

	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}

		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")

		switch name {
		case "-":
			continue
		case "":
			name = strings.ToLower(f.Name)
		}

		fields[name] = f.Type
	}

	return fields
}
