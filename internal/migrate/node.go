package migrate

import (
	"strings"

	"go.yaml.in/yaml/v4"
)

// get finds key in mapping m: its key and value nodes, or nils.
func get(m *yaml.Node, key string) (k, v *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}

	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}

	return nil, nil
}

// at follows a dotted path of mapping keys.
func at(m *yaml.Node, path string) (k, v *yaml.Node) {
	v = m

	for _, key := range strings.Split(path, ".") {
		if k, v = get(v, key); v == nil {
			return nil, nil
		}
	}

	return k, v
}

// del removes key from mapping m.
func del(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)

			return
		}
	}
}

// set puts key: v into mapping m, replacing a value already there.
func set(m *yaml.Node, key string, v *yaml.Node) *yaml.Node {
	if k, old := get(m, key); old != nil {
		for i := 1; i < len(m.Content); i += 2 {
			if m.Content[i] == old {
				m.Content[i] = v
			}
		}

		return k
	}

	k := str(key)
	m.Content = append(m.Content, k, v)

	return k
}

// child is the mapping under key in m, made when missing.
func child(m *yaml.Node, key string) *yaml.Node {
	if _, v := get(m, key); v != nil && v.Kind == yaml.MappingNode {
		return v
	}

	v := mapping()
	set(m, key, v)

	return v
}

func mapping() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"} }

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

// quoted is a string that must stay a string ("" or "off").
func quoted(s string) *yaml.Node {
	n := str(s)
	n.Style = yaml.DoubleQuotedStyle

	return n
}

// keys lists a mapping's keys in order.
func keys(m *yaml.Node) []string {
	var out []string

	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}

	for i := 0; i+1 < len(m.Content); i += 2 {
		out = append(out, m.Content[i].Value)
	}

	return out
}

// scalarMap reads a mapping of scalars; ok is false when a value is not a scalar.
func scalarMap(m *yaml.Node) (map[string]string, bool) {
	out := map[string]string{}

	if m == nil || m.Kind != yaml.MappingNode {
		return nil, false
	}

	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i+1].Kind != yaml.ScalarNode {
			return nil, false
		}

		out[m.Content[i].Value] = m.Content[i+1].Value
	}

	return out, true
}

// joinComments joins comment blocks, skipping empty ones.
func joinComments(cs ...string) string {
	var out []string

	for _, c := range cs {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}

	return strings.Join(out, "\n")
}
