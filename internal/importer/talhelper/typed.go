package talhelper

import (
	"encoding"
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v4"
)

// typed reads a value the way talhelper reads it, into the Go type of its field: a key that
// type does not know is dropped (talhelper's parser ignores it) and each is a finding at its
// line naming it. It returns the value without them, as plain YAML for a patch, and false
// when the rest is not of the type (talhelper fails on it), which is a finding too.
func (im *mapping) typed(n *yaml.Node, node, at string, goType reflect.Type) (any, bool) {
	kept := im.known(n, node, at, goType)

	if err := kept.Decode(reflect.New(goType).Interface()); err != nil {
		im.repo.Unsupported(decodeLine(err, n), node, at, "a value of a type talhelper cannot read (it fails on it): not imported")

		return nil, false
	}

	v, err := plain(kept)
	if err != nil {
		im.repo.Unsupported(n.Line, node, at, "not readable; not imported")

		return nil, false
	}

	return v, true
}

// known is a copy of a value without the keys its Go type does not know; each left out is
// reported. Values of a type that reads itself (a YAML or text unmarshaler) are kept whole.
func (im *mapping) known(n *yaml.Node, node, at string, t reflect.Type) *yaml.Node {
	n = deref(n)
	if n == nil {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	}

	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}

	if readsItself(t) {
		return n
	}

	switch {
	case n.Kind == yaml.SequenceNode && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
		out := *n
		out.Content = make([]*yaml.Node, 0, len(n.Content))

		for i, c := range n.Content {
			out.Content = append(out.Content, im.known(c, node, fmt.Sprintf("%s[%d]", at, i), t.Elem()))
		}

		return &out
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Map:
		out := *n
		out.Content = make([]*yaml.Node, 0, len(n.Content))

		for _, p := range pairs(n) {
			out.Content = append(out.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: p.key, Line: p.line}, im.known(p.value, node, at+"."+p.key, t.Elem()))
		}

		return &out
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Struct:
		fields, open := yamlFields(t)
		out := *n
		out.Content = make([]*yaml.Node, 0, len(n.Content))

		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]

			ft, ok := fields[k.Value]
			switch {
			case ok:
				out.Content = append(out.Content, k, im.known(v, node, at+"."+k.Value, ft))
			case open:
				out.Content = append(out.Content, k, v)
			default:
				im.repo.Unsupported(k.Line, node, at+"."+k.Value, "unknown to talhelper, which drops it: not imported")
			}
		}

		return &out
	}

	return n
}

// yamlFields are the keys of a struct as yaml reads them (inlined structs' too), with their
// types; open says an inlined map takes any other key.
func yamlFields(t reflect.Type) (map[string]reflect.Type, bool) {
	fields := map[string]reflect.Type{}
	open := false

	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}

		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}

		if strings.Contains(opts, "inline") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}

			if ft.Kind() == reflect.Map {
				open = true

				continue
			}

			inner, innerOpen := yamlFields(ft)
			for k, v := range inner {
				fields[k] = v
			}

			open = open || innerOpen

			continue
		}

		if name == "" {
			name = strings.ToLower(f.Name)
		}

		fields[name] = f.Type
	}

	return fields, open
}

// selfDecoding are the interfaces through which a type decodes its own YAML (or text): go-yaml's
// two forms of UnmarshalYAML (machinery's types use the older one) and UnmarshalText.
var selfDecoding = []reflect.Type{
	reflect.TypeFor[yaml.Unmarshaler](),
	reflect.TypeFor[interface {
		UnmarshalYAML(unmarshal func(any) error) error
	}](),
	reflect.TypeFor[encoding.TextUnmarshaler](),
}

// readsItself says the type decodes its own YAML (or text), so its keys are its business.
// It asks by interface, not by method name: a lookup by a name the compiler cannot see
// keeps every exported method of the binary linked.
func readsItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)

	for _, i := range selfDecoding {
		if p.Implements(i) {
			return true
		}
	}

	return t.Kind() == reflect.Interface
}
