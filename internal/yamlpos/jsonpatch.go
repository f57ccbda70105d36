package yamlpos

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// JSONPatchOp is one operation of an RFC 6902 patch as written.
type JSONPatchOp struct {
	// Pointer is the operation's path as written (a JSON Pointer), "" when absent.
	Pointer string
	// Path is Pointer as a config path: /machine/kernel/modules/0 → machine.kernel.modules[0].
	Path string
	// Line is where the operation starts.
	Line int
	// PathLine is the line of the operation's path (its start when it has none).
	PathLine int
}

// JSONPatch reads where the operations of an RFC 6902 patch (in YAML or JSON) sit, and
// indexes the patch by the config paths it sets rather than by its own keys: each
// operation's path at the line of its value, and every key inside the value below it.
// Findings about the final config can so point at the operation that set a field. Later
// operations win, as they apply last. ok is false when data is not a list of operations.
func JSONPatch(data []byte) (ops []JSONPatchOp, ix *Index, ok bool) {
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil || len(root.Content) == 0 || root.Content[0].Kind != yaml.SequenceNode {
		return nil, nil, false
	}

	seq := root.Content[0]
	doc := Doc{Line: seq.Line, lines: map[string]int{}}

	for _, item := range seq.Content {
		op := JSONPatchOp{Line: item.Line, PathLine: item.Line}

		var value, valueKey *yaml.Node

		if item.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(item.Content); i += 2 {
				k, v := item.Content[i], item.Content[i+1]

				switch k.Value {
				case "path":
					if v.Kind == yaml.ScalarNode {
						op.Pointer, op.PathLine = v.Value, k.Line
					}
				case "value":
					value, valueKey = v, k
				}
			}
		}

		op.Path = pointerPath(op.Pointer)
		ops = append(ops, op)

		if op.Path == "" {
			continue
		}

		doc.lines[op.Path] = op.PathLine

		if value == nil {
			continue
		}

		doc.lines[op.Path] = valueKey.Line

		// Appending (/-) adds an item whose index the patch does not know.
		prefix := op.Path
		if strings.HasSuffix(op.Pointer, "/-") {
			prefix += "[-]"
		}

		sub := map[string]int{}
		walk(value, prefix, sub, nil, 0)

		for p, l := range sub {
			doc.lines[p] = l
		}
	}

	return ops, &Index{Docs: []Doc{doc}}, true
}

// pointerPath turns a JSON Pointer into a config path; numeric tokens are sequence indexes.
func pointerPath(pointer string) string {
	if pointer == "" || pointer[0] != '/' {
		return ""
	}

	var b strings.Builder

	for _, tok := range strings.Split(pointer[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")

		switch {
		case tok == "-":
			// The end of a sequence: the path stops at the sequence.
		case isIndex(tok):
			b.WriteString("[" + tok + "]")
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}

			b.WriteString(tok)
		}
	}

	return b.String()
}

func isIndex(tok string) bool {
	if tok == "" {
		return false
	}

	_, err := strconv.Atoi(tok)

	return err == nil && tok[0] != '-' && tok[0] != '+'
}
