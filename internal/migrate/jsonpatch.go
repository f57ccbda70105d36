package migrate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// fromJSONPatch is the strategic-merge v1alpha1 document an RFC 6902 patch stands for, so
// that its fields move like any other's: `add` and `replace` of a mapping key set it,
// `remove` deletes it (`$patch: delete`), `add` at the end of a list (/-) appends to it.
// It is only equivalent where the merge of the value is the replacement the operation was
// (a scalar, or a key the generated config does not have): the proof that follows the
// migration judges that on every node. nil and the reason when an operation has no such
// form (move, copy, test, a list index, two operations on one path other than appends to
// one list).
func fromJSONPatch(ops *yaml.Node) (doc *yaml.Node, line int, reason string) {
	body := mapping()

	// written are the paths set or deleted, appended the lists appended to: a list may take
	// several items in order, any other path one operation.
	var written, appended [][]string

	for _, op := range ops.Content {
		o, err := jsonOp(op)
		if err != nil {
			return nil, op.Line, err.Error()
		}

		for _, w := range written {
			if prefixOf(w, o.path) || prefixOf(o.path, w) {
				return nil, op.Line, "two operations on /" + strings.Join(o.path, "/") + ": their order has no strategic-merge form"
			}
		}

		for _, a := range appended {
			if sameList := o.appends && slices.Equal(a, o.path); !sameList && (prefixOf(a, o.path) || prefixOf(o.path, a)) {
				return nil, op.Line, "two operations on /" + strings.Join(o.path, "/") + ": their order has no strategic-merge form"
			}
		}

		parent := body
		for _, key := range o.path[:len(o.path)-1] {
			parent = child(parent, key)
		}

		last := o.path[len(o.path)-1]

		switch {
		case o.appends:
			// A strategic merge appends a list's items to the list the config has.
			appended = append(appended, o.path)

			_, list := get(parent, last)
			if list == nil {
				list = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
				set(parent, last, list)
			}

			list.Content = append(list.Content, o.value)
		case o.kind == "remove":
			written = append(written, o.path)
			del := mapping()
			set(del, "$patch", str("delete"))
			set(parent, last, del)
		default:
			written = append(written, o.path)
			set(parent, last, o.value)
		}
	}

	return &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{body}}, ops.Line, ""
}

// jsonOperation is one operation of an RFC 6902 patch.
type jsonOperation struct {
	kind string
	// path are the mapping keys the operation's path names; appends says it ends in "-"
	// (an item added at the end of the list at path).
	path    []string
	appends bool
	value   *yaml.Node
}

// jsonOp reads one operation.
func jsonOp(op *yaml.Node) (jsonOperation, error) {
	_, o := get(op, "op")
	_, p := get(op, "path")
	_, value := get(op, "value")

	if o == nil || p == nil || o.Kind != yaml.ScalarNode || p.Kind != yaml.ScalarNode {
		return jsonOperation{}, fmt.Errorf("an operation without op and path")
	}

	out := jsonOperation{kind: o.Value, value: value}

	switch out.kind {
	case "add", "replace":
		if value == nil {
			return out, fmt.Errorf("%s %s has no value", out.kind, p.Value)
		}
	case "remove":
	default:
		return out, fmt.Errorf("a %s operation has no strategic-merge form: rewrite it by hand", out.kind)
	}

	if !strings.HasPrefix(p.Value, "/") || p.Value == "/" {
		return out, fmt.Errorf("%s %q is not a path into the config", out.kind, p.Value)
	}

	segs := strings.Split(p.Value[1:], "/")
	if out.kind == "add" && len(segs) > 1 && segs[len(segs)-1] == "-" {
		out.appends = true
		segs = segs[:len(segs)-1]
	}

	for _, seg := range segs {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		if _, index := strconv.Atoi(seg); index == nil || seg == "-" || seg == "" {
			return out, fmt.Errorf("%s %s names a list item: only an item added at the end (/-) has a strategic-merge form", out.kind, p.Value)
		}

		out.path = append(out.path, seg)
	}

	return out, nil
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
