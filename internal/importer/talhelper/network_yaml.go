package talhelper

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/siderolabs/talos/pkg/machinery/config/encoder"
	"go.yaml.in/yaml/v4"
)

// plainDoc is a machinery document as YAML, encoded as Talos encodes it (the names and
// forms talhelper's output has), for the node's documents patch.
func plainDoc(doc any) (*yaml.Node, error) {
	data, err := encoder.NewEncoder(doc, encoder.WithComments(encoder.CommentsDisabled)).Encode()
	if err != nil {
		return nil, fmt.Errorf("encode a %T: %w", doc, err)
	}

	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		return nil, fmt.Errorf("read back a %T: %w", doc, err)
	}

	return &n, nil
}

// itemAt is a sequence's i-th entry, or nil.
func itemAt(n *yaml.Node, i int) *yaml.Node {
	if it := items(n); i >= 0 && i < len(it) {
		return it[i]
	}

	return nil
}

// itemLine is the line of a sequence's i-th entry, or the sequence's.
func itemLine(n *yaml.Node, i int) int {
	if it := itemAt(n, i); it != nil {
		return it.Line
	}

	if n != nil {
		return n.Line
	}

	return 0
}

// variablesAt are the variables talhelper substitutes on a line of the talconfig as
// written (before substitution), as ${NAME}; "" when there are none.
func variablesAt(data []byte, line int) string {
	lines := bytes.Split(data, []byte("\n"))
	if line <= 0 || line > len(lines) {
		return ""
	}

	var names []string

	for _, m := range referencePattern().FindAllSubmatch(lines[line-1], -1) {
		if name := string(m[1]); name != "" {
			names = append(names, "${"+name+"}")
		}
	}

	return strings.Join(names, ", ")
}
