package yamlpos

import (
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// Unknown is a key that the target type has no field for.
type Unknown struct {
	Path string
	Line int
	// Key is the unknown key itself; Known are the keys its mapping's type declares,
	// sorted (for a "did you mean").
	Key   string
	Known []string
}

// UnknownFields walks n against the yaml tags of typ and returns every key
// typ does not declare, with its path and line. Maps accept any key. Merge keys
// (<<) and aliases are followed, as the decoder follows them; a key that comes
// from an anchor is reported once, at the path where the anchor is first used.
func UnknownFields(n *yaml.Node, typ reflect.Type) []Unknown {
	var out []Unknown

	unknownFields(n, typ, "", &out, 0, map[aliasVisit]bool{})

	return out
}

// aliasVisit is an anchored node checked against a type: each is checked once, which
// keeps documents that reuse anchors many times from multiplying the work.
type aliasVisit struct {
	node *yaml.Node
	typ  reflect.Type
}

func unknownFields(n *yaml.Node, typ reflect.Type, prefix string, out *[]Unknown, depth int, seen map[aliasVisit]bool) {
	if depth > maxDepth || n == nil {
		return
	}

	if n.Kind == yaml.AliasNode {
		if n.Alias == nil || seen[aliasVisit{n.Alias, typ}] {
			return
		}

		seen[aliasVisit{n.Alias, typ}] = true
		unknownFields(n.Alias, typ, prefix, out, depth+1, seen)

		return
	}

	if n.Kind == yaml.DocumentNode {
		for _, c := range n.Content {
			unknownFields(c, typ, prefix, out, depth+1, seen)
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

			if isMerge(k) {
				// The merged mappings' keys land in this mapping: check them against its type.
				merged := []*yaml.Node{v}
				if v.Kind == yaml.SequenceNode {
					merged = v.Content
				}

				for _, m := range merged {
					unknownFields(m, typ, prefix, out, depth+1, seen)
				}

				continue
			}

			ft, ok := fields[k.Value]
			if !ok {
				*out = append(*out, Unknown{Path: p, Line: k.Line, Key: k.Value, Known: slices.Sorted(maps.Keys(fields))})

				continue
			}

			unknownFields(v, ft, p, out, depth+1, seen)
		}
	case n.Kind == yaml.MappingNode && typ.Kind() == reflect.Map:
		for i := 0; i+1 < len(n.Content); i += 2 {
			unknownFields(n.Content[i+1], typ.Elem(), join(prefix, n.Content[i].Value), out, depth+1, seen)
		}
	case n.Kind == yaml.SequenceNode && typ.Kind() == reflect.Slice:
		for i, item := range n.Content {
			unknownFields(item, typ.Elem(), prefix+"["+strconv.Itoa(i)+"]", out, depth+1, seen)
		}
	}
}

// isMerge reports whether a mapping key is the merge key <<.
func isMerge(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge"
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
