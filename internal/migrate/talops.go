package migrate

import (
	"bytes"
	"fmt"

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
