package talhelper

import "go.yaml.in/yaml/v4"

// pair is one key of a mapping with its value.
type pair struct {
	key   string
	line  int
	value *yaml.Node
}

// pairs lists a mapping's keys in order; anything else has none.
func pairs(n *yaml.Node) []pair {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}

	out := make([]pair, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, pair{key: n.Content[i].Value, line: n.Content[i].Line, value: deref(n.Content[i+1])})
	}

	return out
}

// get returns the value of key in a mapping, or nil.
func get(n *yaml.Node, key string) *yaml.Node {
	for _, p := range pairs(n) {
		if p.key == key {
			return p.value
		}
	}

	return nil
}

// deref follows aliases (talconfig files share SAN lists with anchors).
func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}

	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		return deref(n.Content[0])
	}

	return n
}

// scalar is a scalar's value, "" for anything else.
func scalar(n *yaml.Node) string {
	if n = deref(n); n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}

	return n.Value
}

// strs reads a sequence of scalars.
func strs(n *yaml.Node) []string {
	n = deref(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}

	out := make([]string, 0, len(n.Content))
	for _, c := range n.Content {
		out = append(out, scalar(c))
	}

	return out
}

// plain turns a node into plain Go values, for re-encoding into patches.
func plain(n *yaml.Node) (any, error) {
	var v any
	if err := deref(n).Decode(&v); err != nil {
		return nil, err
	}

	return v, nil
}

// walkScalars calls f on every scalar (keys and values), following no alias twice.
func walkScalars(n *yaml.Node, f func(*yaml.Node)) {
	if n == nil {
		return
	}

	if n.Kind == yaml.ScalarNode {
		f(n)

		return
	}

	for _, c := range n.Content {
		walkScalars(c, f)
	}
}

// items are a sequence's entries; anything else has none.
func items(n *yaml.Node) []*yaml.Node {
	if n = deref(n); n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}

	out := make([]*yaml.Node, 0, len(n.Content))
	for _, c := range n.Content {
		out = append(out, deref(c))
	}

	return out
}
