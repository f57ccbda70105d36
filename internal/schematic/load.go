package schematic

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/yamlpos"
)

// Load reads a schematic the way the factory does, and as strictly: an unknown
// key, a value of the wrong type, a duplicate key or an empty document is an
// error naming its line (*UnknownFieldError or *DecodeError). Unlike the
// factory it also refuses a second YAML document, which the factory would
// silently ignore. An opaque schematic file (see Opaque) is an *OpaqueError: it
// has no content to load.
func Load(data []byte) (*Schematic, error) {
	s, _, err := LoadWithPositions(data)

	return s, err
}

// LoadWithPositions is Load that also returns where each key and list item
// sits in data, so findings can point at the line to fix.
func LoadWithPositions(data []byte) (*Schematic, *Positions, error) {
	root, err := parseNode(data)
	if err != nil {
		return nil, nil, err
	}

	if id, named, err := opaqueID(root); named {
		if err != nil {
			return nil, nil, err
		}

		return nil, nil, &OpaqueError{ID: id, Line: root.Content[0].Line}
	}

	w := walker{pos: map[string]Position{}, seen: map[visit]bool{}}
	if err := w.walk(root, reflect.TypeFor[Schematic](), "", recordAll); err != nil {
		return nil, nil, err
	}

	// The struct is filled by the decoder the factory itself uses, so values
	// get exactly the factory's interpretation; the walk above only adds
	// positions and typed unknown-field errors.
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)

	var s Schematic
	if err := dec.Decode(&s); err != nil {
		return nil, nil, decodeError(err)
	}

	return &s, &Positions{byPath: w.pos}, nil
}

// parseNode returns the single document in data.
func parseNode(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))

	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &DecodeError{Msg: "schematic is empty (the factory rejects an empty document; {} is the stock image)"}
		}

		return nil, decodeError(err)
	}

	var over *yamlpos.BudgetError
	if err := yamlpos.CheckNode(&doc); errors.As(err, &over) {
		return nil, &DecodeError{Line: over.Line, Column: over.Column, Msg: over.Msg, Err: err}
	}

	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, decodeError(err)
	default:
		return nil, &DecodeError{
			Line: next.Line, Column: next.Column,
			Msg: "a second YAML document; a schematic file holds one (the factory would ignore the rest)",
		}
	}

	return &doc, nil
}

func decodeError(err error) error {
	var le *yaml.LoadError
	if errors.As(err, &le) {
		return &DecodeError{Line: le.Mark.Line, Column: le.Mark.Column, Msg: le.Message, Err: err}
	}

	return &DecodeError{Msg: err.Error(), Err: err}
}

type recordMode int

const (
	recordAll      recordMode = iota // keys written in place
	recordIfAbsent                   // keys pulled in by a merge (<<): the mapping's own keys win
	recordNone                       // under an alias: the place is the anchor's, shared by every alias
)

type visit struct {
	node *yaml.Node
	typ  reflect.Type
	path string
	mode recordMode
}

// walker checks keys against the struct types and records positions. It
// visits a node once per (type, path, mode), which bounds the work on
// documents that reuse anchors many times.
type walker struct {
	pos  map[string]Position
	seen map[visit]bool
}

func (w *walker) walk(n *yaml.Node, t reflect.Type, path string, mode recordMode) error {
	v := visit{n, t, path, mode}
	if mode == recordNone {
		// Below an alias nothing is recorded, so the path only names the
		// place in an error; forgetting it keeps anchors that reuse anchors
		// from multiplying the work.
		v.path = ""
	}

	if w.seen[v] {
		return nil
	}

	w.seen[v] = true

	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}

		return w.walk(n.Content[0], t, path, mode)
	}

	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return nil
		}

		return w.walk(n.Alias, t, path, recordNone)
	}

	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}

	switch n.Kind {
	case yaml.MappingNode:
		return w.mapping(n, t, path, mode)
	case yaml.SequenceNode:
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}

		for i, item := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			w.record(p, item, mode)

			if err := w.walk(item, elem, p, mode); err != nil {
				return err
			}
		}
	}

	// Scalars, and shapes that do not fit the type, are left to the decoder,
	// which reports them with its own message.
	return nil
}

func (w *walker) mapping(n *yaml.Node, t reflect.Type, path string, mode recordMode) error {
	var (
		fields map[string]reflect.Type
		known  []string
		elem   reflect.Type
	)

	if t != nil {
		switch t.Kind() {
		case reflect.Struct:
			fields, known = yamlFields(t)
		case reflect.Map:
			elem = t.Elem()
		}
	}

	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]

		if isMergeKey(k) {
			if err := w.merge(v, t, path, mode); err != nil {
				return err
			}

			continue
		}

		p := joinPath(path, k.Value)
		w.record(p, k, mode)

		ct := elem

		if fields != nil {
			ft, ok := fields[k.Value]
			if !ok {
				return &UnknownFieldError{Field: k.Value, Path: path, Known: known, Line: k.Line, Column: k.Column}
			}

			ct = ft
		}

		if err := w.walk(v, ct, p, mode); err != nil {
			return err
		}
	}

	return nil
}

func (w *walker) merge(v *yaml.Node, t reflect.Type, path string, mode recordMode) error {
	if mode == recordAll {
		mode = recordIfAbsent
	}

	if v.Kind == yaml.SequenceNode {
		for _, item := range v.Content {
			if err := w.walk(item, t, path, mode); err != nil {
				return err
			}
		}

		return nil
	}

	return w.walk(v, t, path, mode)
}

func (w *walker) record(path string, n *yaml.Node, mode recordMode) {
	switch mode {
	case recordAll:
		w.pos[path] = Position{Line: n.Line, Column: n.Column}
	case recordIfAbsent:
		if _, ok := w.pos[path]; !ok {
			w.pos[path] = Position{Line: n.Line, Column: n.Column}
		}
	case recordNone:
	}
}

func isMergeKey(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!merge"
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}

	return path + "." + key
}

// yamlFields maps each YAML key of struct t to its field type, and lists the
// keys in field order.
func yamlFields(t reflect.Type) (map[string]reflect.Type, []string) {
	fields := map[string]reflect.Type{}

	var known []string

	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}

		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}

		if name == "" {
			name = strings.ToLower(f.Name)
		}

		fields[name] = f.Type
		known = append(known, name)
	}

	return fields, known
}
