package talosctl

import (
	"reflect"
	"slices"
	"strings"
)

// op is one RFC 6902 operation; a removal has no value (and a false or empty value is
// still a value, so it is not a struct field with omitempty).
type op map[string]any

func opOf(kind, path string, value ...any) op {
	o := op{"op": kind, "path": path}
	if len(value) > 0 {
		o["value"] = value[0]
	}

	return o
}

// diff returns the operations that turn from into to: a key only in to is added, a key
// only in from removed, a mapping in both compared key by key, anything else that
// differs replaced whole (lists included: their items have no names to patch by).
func diff(from, to map[string]any, path string) []op {
	var ops []op

	keys := make([]string, 0, len(from)+len(to))
	for k := range from {
		keys = append(keys, k)
	}

	for k := range to {
		if _, ok := from[k]; !ok {
			keys = append(keys, k)
		}
	}

	slices.Sort(keys)

	for _, k := range keys {
		p := path + "/" + escape(k)
		a, inFrom := from[k]
		b, inTo := to[k]

		switch {
		case !inTo:
			ops = append(ops, opOf("remove", p))
		case !inFrom:
			ops = append(ops, opOf("add", p, b))
		default:
			am, aok := a.(map[string]any)
			bm, bok := b.(map[string]any)

			switch {
			case aok && bok:
				ops = append(ops, diff(am, bm, p)...)
			case !reflect.DeepEqual(a, b):
				ops = append(ops, opOf("replace", p, b))
			}
		}
	}

	return ops
}

// escape writes a key as a JSON pointer token.
func escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}
