// Package importtest compares machine configs the way the import tests need: two configs
// are the same when every document of one is in the other and every field of it has the
// same value, whatever the documents' order, the keys' order, comments or quoting. It also
// reads a tool's configuration types and the field table of docs/import.md, so the import
// tests can hold the table to the tools' fields.
package importtest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/siderolabs/talos/pkg/machinery/config/config"
	"github.com/siderolabs/talos/pkg/machinery/config/configloader"
	"github.com/siderolabs/talos/pkg/machinery/config/encoder"
)

// Compare loads both configs with Talos machinery and compares the canonical encoding of
// each document, keyed by its kind and name. It returns one line per difference (a
// document only in one of them, or the first line where a document's encodings differ),
// none when the configs are semantically identical. The lines name fields, not values
// from secret fields: a differing line is shown only by its field path.
func Compare(want, got []byte) ([]string, error) {
	w, err := documents(want)
	if err != nil {
		return nil, fmt.Errorf("load the expected config: %w", err)
	}

	g, err := documents(got)
	if err != nil {
		return nil, fmt.Errorf("load the config compared: %w", err)
	}

	var out []string

	for _, key := range sortedKeys(w, g) {
		a, inW := w[key]
		b, inG := g[key]

		switch {
		case !inG:
			out = append(out, key+": missing")
		case !inW:
			out = append(out, key+": not expected")
		case a != b:
			out = append(out, key+": "+firstDifference(a, b))
		}
	}

	return out, nil
}

// documents maps each document of a config to its canonical encoding.
func documents(data []byte) (map[string]string, error) {
	cfg, err := configloader.NewFromBytes(data)
	if err != nil {
		return nil, err
	}

	out := map[string]string{}

	for _, doc := range cfg.Documents() {
		enc, err := encoder.NewEncoder(doc, encoder.WithComments(encoder.CommentsDisabled)).Encode()
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", key(doc), err)
		}

		k := key(doc)
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("two documents %s", k)
		}

		out[k] = string(enc)
	}

	return out, nil
}

func key(doc config.Document) string {
	if n, ok := doc.(config.NamedDocument); ok && n.Name() != "" {
		return doc.Kind() + " " + n.Name()
	}

	return doc.Kind()
}

func sortedKeys(a, b map[string]string) []string {
	var keys []string

	for k := range a {
		keys = append(keys, k)
	}

	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}

	slices.Sort(keys)

	return keys
}

// firstDifference names the first line where two encodings differ, by the YAML keys
// leading to it (its indentation path), without the values.
func firstDifference(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")

	var path []string

	for i := 0; i < max(len(al), len(bl)); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}

		if i < len(bl) {
			y = bl[i]
		}

		if x != y {
			line := x
			if line == "" {
				line = y
			}

			if d := depthOf(line); d < len(path) {
				path = path[:d]
			}

			return fmt.Sprintf("differs at line %d (%s)", i+1, strings.Join(append(path, keyOf(line)), "."))
		}

		path = pathAt(path, x)
	}

	return "differs"
}

// pathAt keeps the path of mapping keys above a line, from its indentation.
func pathAt(path []string, line string) []string {
	k := keyOf(line)
	if k == "" {
		return path
	}

	depth := depthOf(line)
	if depth < len(path) {
		path = path[:depth]
	}

	if strings.HasSuffix(strings.TrimSpace(line), ":") && depth == len(path) {
		path = append(path, k)
	}

	return path
}

func keyOf(line string) string {
	t := strings.TrimLeft(line, " -")
	if k, _, ok := strings.Cut(t, ":"); ok {
		return k
	}

	return ""
}

// depthOf is a line's nesting from its indentation: machinery indents by four.
func depthOf(line string) int {
	return (len(line) - len(strings.TrimLeft(line, " -"))) / 4
}
