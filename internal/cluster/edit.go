package cluster

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v4"
)

// SetValue changes the scalar at a dotted path of talops.yaml (data) from one value to
// another, editing the bytes of that value alone so that every other byte (comments,
// order, quotes, layout) stays. It refuses when the value is not from: the file changed
// since it was read, and the edit would not be the one decided.
func SetValue(data []byte, path, from, to string) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", FileName, err)
	}

	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: file is empty", FileName)
	}

	v := doc.Content[0]
	for _, key := range strings.Split(path, ".") {
		if v = mappingValue(v, key); v == nil {
			return nil, fmt.Errorf("%s: %s is not set", FileName, path)
		}
	}

	if v.Kind != yaml.ScalarNode || v.Value != from {
		return nil, fmt.Errorf("%s:%d: %s is %q, not %q", FileName, v.Line, path, v.Value, from)
	}

	// The value as written: plain, or between the quotes its style puts around it.
	quote := ""

	switch v.Style {
	case 0:
	case yaml.DoubleQuotedStyle:
		quote = `"`
	case yaml.SingleQuotedStyle:
		quote = "'"
	default:
		return nil, fmt.Errorf("%s:%d: %s: write it as a plain or quoted value to let talops change it", FileName, v.Line, path)
	}

	lines := bytes.SplitAfter(data, []byte("\n"))
	line := lines[v.Line-1]
	col := v.Column - 1
	written := quote + from + quote

	if col+len(written) > len(line) || string(line[col:col+len(written)]) != written {
		return nil, fmt.Errorf("%s:%d: %s: write it as a plain or quoted value on one line to let talops change it", FileName, v.Line, path)
	}

	lines[v.Line-1] = append(append(bytes.Clone(line[:col]), quote+to+quote...), line[col+len(written):]...)

	return bytes.Join(lines, nil), nil
}

func mappingValue(m *yaml.Node, key string) *yaml.Node {
	if m.Kind != yaml.MappingNode {
		return nil
	}

	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}

	return nil
}
