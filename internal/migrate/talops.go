package migrate

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"
)

// setConfigVersion sets talops.yaml's configVersion to target, editing that one line so
// every other byte (comments, order, style) stays; a file without one gets it at the end.
func setConfigVersion(data []byte, target string) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("talops.yaml: %w", err)
	}

	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("talops.yaml: not a mapping")
	}

	_, v := get(doc.Content[0], "configVersion")
	if v == nil {
		out := bytes.Clone(data)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}

		return append(out, "# The config format the patches are written for (talops migrate moved them).\nconfigVersion: "+target+"\n"...), nil
	}

	if v.Value == target {
		return data, nil
	}

	lines := bytes.SplitAfter(data, []byte("\n"))
	line := lines[v.Line-1]
	col := v.Column - 1

	if col+len(v.Value) > len(line) || v.Kind != yaml.ScalarNode || v.Style != 0 {
		return nil, fmt.Errorf("talops.yaml:%d: configVersion: write it as a plain value (configVersion: %s) to let migrate change it", v.Line, v.Value)
	}

	lines[v.Line-1] = append(append(bytes.Clone(line[:col]), target...), line[col+len(v.Value):]...)

	return bytes.Join(lines, nil), nil
}

// addPatch names file in talops.yaml's patches.<role> (all, controlplane), after the files
// already there, editing lines so that every other byte stays: an item appended to a block
// list or a one-line flow list, a role key added under patches:, or a patches: section
// added at the end.
func addPatch(data []byte, role, file string) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("talops.yaml: %w", err)
	}

	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("talops.yaml: not a mapping")
	}

	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}

	if n := len(lines); n > 0 && !bytes.HasSuffix(lines[n-1], []byte("\n")) {
		lines[n-1] = append(bytes.Clone(lines[n-1]), '\n')
	}

	insert := func(after int, text string) []byte {
		out := slices.Clone(lines[:after])
		out = append(out, []byte(text))
		out = append(out, lines[after:]...)

		return bytes.Join(out, nil)
	}

	pk, patches := get(doc.Content[0], "patches")

	switch {
	case patches == nil:
		return insert(len(lines), "patches:\n  "+role+": ["+file+"]\n"), nil
	case patches.Kind != yaml.MappingNode || patches.Style&yaml.FlowStyle != 0 || len(patches.Content) == 0:
		return nil, fmt.Errorf("talops.yaml:%d: patches: write it as a block mapping to let migrate add %s to it", pk.Line, file)
	}

	rk, list := get(patches, role)

	switch {
	case list == nil:
		first := patches.Content[0]

		return insert(pk.Line, strings.Repeat(" ", first.Column-1)+role+": ["+file+"]\n"), nil
	case list.Kind != yaml.SequenceNode:
		return nil, fmt.Errorf("talops.yaml:%d: patches.%s: not a list", rk.Line, role)
	case list.Style&yaml.FlowStyle != 0:
		line, ok := appendToFlowList(lines[list.Line-1], list, file)
		if !ok {
			return nil, fmt.Errorf("talops.yaml:%d: patches.%s: write it on one line or as a block list to let migrate add %s to it", rk.Line, role, file)
		}

		lines[list.Line-1] = line

		return bytes.Join(lines, nil), nil
	case len(list.Content) == 0:
		return nil, fmt.Errorf("talops.yaml:%d: patches.%s: an empty block list", rk.Line, role)
	}

	last := list.Content[len(list.Content)-1]
	if last.Kind != yaml.ScalarNode || last.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return nil, fmt.Errorf("talops.yaml:%d: patches.%s: its last item is not a file name", last.Line, role)
	}

	// The new item is written as the last one is: its indent and dash.
	prefix := lines[last.Line-1][:last.Column-1]

	return insert(last.Line, string(prefix)+file+"\n"), nil
}

// appendToFlowList adds file at the end of the one-line flow list on line; false when the
// list takes more than that line.
func appendToFlowList(line []byte, list *yaml.Node, file string) ([]byte, bool) {
	end := bytes.LastIndexByte(line, ']')
	if end < 0 || len(list.Content) > 0 && list.Content[len(list.Content)-1].Line != list.Line {
		return nil, false
	}

	sep := ", "
	if len(list.Content) == 0 {
		sep = ""
	}

	return slices.Concat(line[:end], []byte(sep+file), line[end:]), true
}
