package importer

import (
	"bytes"
	"fmt"

	"go.yaml.in/yaml/v4"
)

// EncodeDocs encodes values as one multi-document YAML stream, two spaces of indent, after
// an optional comment line.
func EncodeDocs(comment string, docs []any) ([]byte, error) {
	var b bytes.Buffer

	if comment != "" {
		b.WriteString(comment + "\n")
	}

	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)

	for _, d := range docs {
		if err := enc.Encode(d); err != nil {
			return nil, fmt.Errorf("encode: %w", err)
		}
	}

	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}

	return b.Bytes(), nil
}

// EncodeNodes encodes parsed documents back as one stream, as EncodeDocs does; their
// comments stay where the parser kept them.
func EncodeNodes(docs []*yaml.Node) ([]byte, error) {
	vals := make([]any, len(docs))
	for i, d := range docs {
		vals[i] = d
	}

	return EncodeDocs("", vals)
}
