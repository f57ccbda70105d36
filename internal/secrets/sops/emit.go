package sops

import (
	"bytes"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v4"
)

// emitIndent matches the indentation `sops decrypt` writes.
const emitIndent = 4

// emit renders decrypted documents. Comment lines become head comments of
// the entry that follows them, or foot comments after the last entry, as
// sops places them.
func emit(docs []mapping) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(emitIndent)
	for _, m := range docs {
		doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{mappingNode(m)}}
		if err := enc.Encode(doc); err != nil {
			// The encoder's message could quote a value.
			return nil, &FormatError{Reason: "the decrypted document cannot be encoded as YAML"}
		}
	}
	if err := enc.Close(); err != nil {
		return nil, &FormatError{Reason: "the decrypted document cannot be encoded as YAML"}
	}
	return buf.Bytes(), nil
}

func mappingNode(m mapping) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	var pending []string
	for _, e := range m {
		if e.isComment {
			pending = append(pending, e.key)
			continue
		}
		k := &yaml.Node{}
		setString(k, e.key)
		k.HeadComment = commentBlock(pending)
		pending = nil
		n.Content = append(n.Content, k, valueNode(e.value))
	}
	attachTrailing(n, pending, 2)
	return n
}

func sequenceNode(s sequence) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	var pending []string
	for _, item := range s {
		if c, ok := item.(*comment); ok {
			pending = append(pending, c.text)
			continue
		}
		v := valueNode(item)
		v.HeadComment = commentBlock(pending)
		pending = nil
		n.Content = append(n.Content, v)
	}
	attachTrailing(n, pending, 1)
	return n
}

// attachTrailing puts comments that follow the last entry under it, or on
// the collection itself when it has no entries. stride is the number of
// nodes per entry.
func attachTrailing(n *yaml.Node, comments []string, stride int) {
	if len(comments) == 0 {
		return
	}
	if len(n.Content) == 0 {
		n.HeadComment = commentBlock(comments)
		return
	}
	last := n.Content[len(n.Content)-stride]
	if last.FootComment != "" {
		last.FootComment += "\n"
	}
	last.FootComment += commentBlock(comments)
}

// commentBlock renders comment lines. A decrypted comment may hold line
// breaks; each piece gets its own '#' so that no comment text can turn into
// YAML content.
func commentBlock(lines []string) string {
	var out []string
	for _, line := range lines {
		line = strings.Map(func(r rune) rune {
			if r == '\r' || r == '\u0085' || r == '\u2028' || r == '\u2029' {
				return '\n'
			}
			return r
		}, strings.ToValidUTF8(line, "\uFFFD"))
		for _, piece := range strings.Split(line, "\n") {
			out = append(out, "#"+piece)
		}
	}
	return strings.Join(out, "\n")
}

func valueNode(v any) *yaml.Node {
	switch v := v.(type) {
	case mapping:
		return mappingNode(v)
	case sequence:
		return sequenceNode(v)
	case *scalar:
		return scalarNode(v.value)
	}
	return scalarNode(nil)
}

// scalarNode renders a value so that it reads back as the same type: unlike
// `sops decrypt`, a float such as 3.0 stays a float.
func scalarNode(v any) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode}
	switch v := v.(type) {
	case string:
		setString(n, v)
	case []byte:
		setString(n, string(v))
	case int:
		n.Tag, n.Value = "!!int", strconv.Itoa(v)
	case uint64:
		n.Tag, n.Value = "!!int", strconv.FormatUint(v, 10)
	case float64:
		n.Tag, n.Value = "!!float", formatFloat(v)
	case bool:
		n.Tag, n.Value = "!!bool", strconv.FormatBool(v)
	case time.Time:
		n.Tag, n.Value = "!!timestamp", v.Format(time.RFC3339Nano)
	default:
		n.Tag, n.Value = "!!null", "null"
	}
	return n
}

// setString quotes strings that YAML 1.1 readers would take for a boolean
// or a base-60 number, as sops's encoder does.
func setString(n *yaml.Node, s string) {
	n.SetString(s)
	if n.Style == 0 && (yaml11Bools[s] || base60Float().MatchString(s)) {
		n.Style = yaml.DoubleQuotedStyle
	}
}

var yaml11Bools = map[string]bool{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true,
	"n": true, "N": true, "no": true, "No": true, "NO": true,
	"on": true, "On": true, "ON": true,
	"off": true, "Off": true, "OFF": true,
}

var base60Float = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`) })

func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return ".nan"
	case math.IsInf(f, 1):
		return ".inf"
	case math.IsInf(f, -1):
		return "-.inf"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}
