package migrate

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// fromJSONPatch is the strategic-merge v1alpha1 document an RFC 6902 patch stands for, so
// that its fields move like any other's: `add` and `replace` of a mapping key set it,
// `remove` deletes it (`$patch: delete`). It is only equivalent where the merge of the
// value is the replacement the operation was (a scalar, or a key the generated config does
// not have): the proof that follows the migration judges that on every node. nil and the
// reason when an operation has no such form (move, copy, test, a list index, two
// operations on one path).
func fromJSONPatch(ops *yaml.Node) (doc *yaml.Node, line int, reason string) {
	body := mapping()

	var written [][]string

	for _, op := range ops.Content {
		kind, path, value, err := jsonOp(op)
		if err != nil {
			return nil, op.Line, err.Error()
		}

		for _, w := range written {
			if prefixOf(w, path) || prefixOf(path, w) {
				return nil, op.Line, "two operations on /" + strings.Join(path, "/") + ": their order has no strategic-merge form"
			}
		}

		written = append(written, path)

		parent := body
		for _, key := range path[:len(path)-1] {
			parent = child(parent, key)
		}

		switch kind {
		case "add", "replace":
			set(parent, path[len(path)-1], value)
		case "remove":
			del := mapping()
			set(del, "$patch", str("delete"))
			set(parent, path[len(path)-1], del)
		}
	}

	return &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{body}}, ops.Line, ""
}

// jsonOp reads one operation: its kind, its path as mapping keys, its value.
func jsonOp(op *yaml.Node) (kind string, path []string, value *yaml.Node, err error) {
	_, o := get(op, "op")
	_, p := get(op, "path")
	_, value = get(op, "value")

	if o == nil || p == nil || o.Kind != yaml.ScalarNode || p.Kind != yaml.ScalarNode {
		return "", nil, nil, fmt.Errorf("an operation without op and path")
	}

	switch kind = o.Value; kind {
	case "add", "replace":
		if value == nil {
			return "", nil, nil, fmt.Errorf("%s %s has no value", kind, p.Value)
		}
	case "remove":
	default:
		return "", nil, nil, fmt.Errorf("a %s operation has no strategic-merge form: rewrite it by hand", kind)
	}

	if !strings.HasPrefix(p.Value, "/") || p.Value == "/" {
		return "", nil, nil, fmt.Errorf("%s %q is not a path into the config", kind, p.Value)
	}

	for _, seg := range strings.Split(p.Value[1:], "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		if _, index := strconv.Atoi(seg); index == nil || seg == "-" || seg == "" {
			return "", nil, nil, fmt.Errorf("%s %s names a list item: a strategic merge appends to lists", kind, p.Value)
		}

		path = append(path, seg)
	}

	return kind, path, value, nil
}

// prefixOf says a is b or one of its parents.
func prefixOf(a, b []string) bool {
	if len(a) > len(b) {
		return false
	}

	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}

	return true
}

// isDeletion is a strategic merge's `{$patch: delete}`.
func isDeletion(v *yaml.Node) bool {
	_, p := get(v, "$patch")

	return p != nil && p.Value == "delete" && len(v.Content) == 2
}
