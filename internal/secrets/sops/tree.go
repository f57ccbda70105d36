package sops

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v4"
)

// The tree mirrors the one sops builds from YAML: each mapping is an ordered
// list of entries where comment lines are entries of their own, each
// sequence holds its comment lines as items, and aliases are expanded. The
// walk order over this tree defines the MAC and which comments gate the
// comment-regex rules, so its shape must match sops's exactly.

type mapping []entry

type entry struct {
	// key is the mapping key, or the text of a comment line (without the
	// leading '#') when isComment is set.
	key       string
	isComment bool
	value     any // *scalar, mapping or sequence; nil for comment lines
	line      int
}

type sequence []any // *scalar, *comment, mapping or sequence

type scalar struct {
	value any // nil, string, int, uint64, float64, bool, time.Time, []byte
	line  int
}

type comment struct {
	text string
	line int
}

// maxNodes bounds alias expansion, so that a small document cannot expand
// into an exponentially large tree; maxDepth bounds nesting, including the
// endless nesting of an alias to its own ancestor. Both are far beyond any
// secrets file.
const (
	maxNodes = 1 << 18
	maxDepth = 1000
)

// parseStream parses every YAML document of data.
func parseStream(data []byte) ([]*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*yaml.Node
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, &FormatError{Reason: "invalid YAML: " + err.Error()}
		}
		docs = append(docs, &doc)
	}
}

type loader struct {
	nodes int
}

func (l *loader) count(n *yaml.Node, path *pathRef) error {
	l.nodes++
	if l.nodes > maxNodes {
		return &FormatError{Line: n.Line, Reason: "document expands to too many nodes"}
	}
	if path.level() > maxDepth {
		return &FormatError{Line: n.Line, Reason: "document nests too deeply"}
	}
	return nil
}

// document converts one YAML document into a mapping the way sops's YAML
// store does, dropping the top-level `sops` key.
func (l *loader) document(doc *yaml.Node) (mapping, error) {
	m, err := l.appendNode(doc, nil, nil, false)
	if err != nil {
		return nil, err
	}
	out := m[:0]
	for _, e := range m {
		if !e.isComment && e.key == metadataKey {
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// appendNode appends the entries of a document, mapping or alias node to m.
func (l *loader) appendNode(n *yaml.Node, m mapping, path *pathRef, commentsHandled bool) (mapping, error) {
	if err := l.count(n, path); err != nil {
		return nil, err
	}
	if !commentsHandled {
		m = appendMappingComments(m, n.HeadComment, n.Line)
		m = appendMappingComments(m, n.LineComment, n.Line)
	}
	var err error
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if m, err = l.appendNode(c, m, path, false); err != nil {
				return nil, err
			}
		}
	case yaml.MappingNode:
		if m, err = l.appendPairs(n, m, path); err != nil {
			return nil, err
		}
	case yaml.SequenceNode:
		return nil, &FormatError{Path: path.String(), Line: n.Line, Reason: "a document that is a sequence is not supported"}
	case yaml.ScalarNode:
		// An empty document (or a bare null) has no entries.
		if v, err := scalarValue(n); err != nil || v != nil {
			return nil, &FormatError{Path: path.String(), Line: n.Line, Reason: "a document that is a scalar is not supported"}
		}
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, &FormatError{Path: path.String(), Line: n.Line, Reason: "alias without an anchor"}
		}
		if m, err = l.appendNode(n.Alias, m, path, false); err != nil {
			return nil, err
		}
	default:
		return nil, &FormatError{Path: path.String(), Line: n.Line, Reason: "unexpected YAML node"}
	}
	if !commentsHandled {
		m = appendMappingComments(m, n.FootComment, n.Line)
	}
	return m, nil
}

func (l *loader) appendPairs(n *yaml.Node, m mapping, path *pathRef) (mapping, error) {
	if len(n.Content)%2 != 0 {
		return nil, &FormatError{Path: path.String(), Line: n.Line, Reason: "mapping with an odd number of nodes"}
	}
	seen := make(map[string]int, len(n.Content)/2)
	for i := 0; i < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		m = appendMappingComments(m, k.HeadComment, k.Line)
		m = appendMappingComments(m, k.LineComment, k.Line)
		valueComments := v.Kind == yaml.ScalarNode || v.Kind == yaml.AliasNode
		if valueComments {
			m = appendMappingComments(m, v.HeadComment, v.Line)
			m = appendMappingComments(m, v.LineComment, v.Line)
		}
		key, err := l.key(k, path)
		if err != nil {
			return nil, err
		}
		if first, dup := seen[key]; dup {
			return nil, &FormatError{Path: path.child(key).String(), Line: k.Line, Reason: fmt.Sprintf("duplicate key, first defined on line %d", first)}
		}
		seen[key] = k.Line
		value, err := l.value(v, path.child(key), valueComments)
		if err != nil {
			return nil, err
		}
		m = append(m, entry{key: key, value: value, line: k.Line})
		if valueComments {
			m = appendMappingComments(m, v.FootComment, v.Line)
		}
		m = appendMappingComments(m, k.FootComment, k.Line)
	}
	return m, nil
}

// key returns a mapping key; sops only supports string keys.
func (l *loader) key(k *yaml.Node, path *pathRef) (string, error) {
	n := k
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		if err := l.count(n, path); err != nil {
			return "", err
		}
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode {
		v, err := scalarValue(n)
		if err != nil {
			return "", &FormatError{Path: path.String(), Line: k.Line, Reason: "mapping key: " + err.Error()}
		}
		if s, ok := v.(string); ok {
			return s, nil
		}
	}
	return "", &FormatError{Path: path.String(), Line: k.Line, Reason: "non-string mapping key"}
}

func (l *loader) value(n *yaml.Node, path *pathRef, commentsHandled bool) (any, error) {
	if err := l.count(n, path); err != nil {
		return nil, err
	}
	switch n.Kind {
	case yaml.ScalarNode:
		v, err := scalarValue(n)
		if err != nil {
			return nil, &FormatError{Path: path.String(), Line: n.Line, Reason: err.Error()}
		}
		return &scalar{value: v, line: n.Line}, nil
	case yaml.MappingNode:
		return l.appendNode(n, mapping{}, path, commentsHandled)
	case yaml.SequenceNode:
		s := sequence{}
		if !commentsHandled {
			s = appendSequenceComments(s, n.HeadComment, n.Line)
			s = appendSequenceComments(s, n.LineComment, n.Line)
		}
		for i, item := range n.Content {
			s = appendSequenceComments(s, item.HeadComment, item.Line)
			s = appendSequenceComments(s, item.LineComment, item.Line)
			v, err := l.value(item, path.item(i), true)
			if err != nil {
				return nil, err
			}
			s = append(s, v)
			s = appendSequenceComments(s, item.FootComment, item.Line)
		}
		if !commentsHandled {
			s = appendSequenceComments(s, n.FootComment, n.Line)
		}
		return s, nil
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, &FormatError{Path: path.String(), Line: n.Line, Reason: "alias without an anchor"}
		}
		return l.value(n.Alias, path, false)
	}
	return nil, &FormatError{Path: path.String(), Line: n.Line, Reason: "unexpected YAML node"}
}

func commentLines(text string) []string {
	if text == "" {
		return nil
	}
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if line != "" {
			out = append(out, strings.TrimPrefix(line, "#"))
		}
	}
	return out
}

func appendMappingComments(m mapping, text string, line int) mapping {
	for _, c := range commentLines(text) {
		m = append(m, entry{key: c, isComment: true, line: line})
	}
	return m
}

func appendSequenceComments(s sequence, text string, line int) sequence {
	for _, c := range commentLines(text) {
		s = append(s, &comment{text: c, line: line})
	}
	return s
}
