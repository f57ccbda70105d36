// Package yamlpos records where each key of a YAML stream is written, so that
// findings about a merged machine config can point back at the line a user edits.
package yamlpos

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v4"
)

// Doc is one document of a YAML stream with the lines of its keys.
type Doc struct {
	// Kind is the document's `kind` (empty for the legacy v1alpha1 machine config).
	Kind string
	// Name is the document's `name`, if any.
	Name string
	// Line is where the document starts.
	Line int

	lines map[string]int
	// data is the stream the document is number n of: PathAt indexes where its values
	// start only when asked (an error's place), so that an index kept for findings holds
	// one map, not two.
	data []byte
	n    int
	// empty is a document without content (only comments, or nothing after ---).
	empty bool
}

// Index holds the documents of a YAML stream.
type Index struct {
	Docs []Doc
}

// Parse indexes every document of data. Paths are dotted keys with [i] for
// sequence items: `machine.kernel.modules[0].name`.
func Parse(data []byte) (*Index, error) {
	ix, _, err := ParseFirst(data)

	return ix, err
}

// ParseFirst is Parse that also returns the first document's root node (nil for an empty
// stream), for a caller that decodes it: the stream is parsed once.
func ParseFirst(data []byte) (*Index, *yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	ix := &Index{}

	var first *yaml.Node

	for {
		root := &yaml.Node{}

		err := dec.Decode(root)
		if errors.Is(err, io.EOF) {
			return ix, first, nil
		}

		if err != nil {
			return nil, nil, err
		}

		if err := CheckNode(root); err != nil {
			return nil, nil, err
		}

		if first == nil {
			first = root
		}

		doc := Doc{Line: root.Line, lines: map[string]int{}, data: data, n: len(ix.Docs), empty: true}

		if len(root.Content) > 0 {
			body := root.Content[0]
			doc.Line = body.Line
			doc.empty = body.Kind == yaml.ScalarNode && body.ShortTag() == "!!null"
			walk(body, "", doc.lines, nil, 0)
			doc.Kind = scalar(body, "kind")
			doc.Name = scalar(body, "name")
		}

		ix.Docs = append(ix.Docs, doc)
	}
}

// valuePaths maps where each value of the document starts (line, column) to its path:
// nil for a document not parsed from a stream, or one that no longer parses.
func (d Doc) valuePaths() map[[2]int]string {
	if d.data == nil {
		return nil
	}

	dec := yaml.NewDecoder(bytes.NewReader(d.data))

	for i := 0; ; i++ {
		var root yaml.Node
		if dec.Decode(&root) != nil {
			return nil
		}

		if i < d.n {
			continue
		}

		values := map[[2]int]string{}
		if len(root.Content) > 0 {
			walk(root.Content[0], "", map[string]int{}, values, 0)
		}

		return values
	}
}

// maxDepth bounds recursion on hostile input.
const maxDepth = 64

func walk(n *yaml.Node, prefix string, lines map[string]int, values map[[2]int]string, depth int) {
	if depth > maxDepth {
		return
	}

	switch n.Kind { //nolint:exhaustive // scalars and aliases carry no keys
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := k.Value

			if prefix != "" {
				p = prefix + "." + k.Value
			}

			if _, seen := lines[p]; !seen {
				lines[p] = k.Line
			}

			if _, seen := values[[2]int{v.Line, v.Column}]; !seen && values != nil {
				values[[2]int{v.Line, v.Column}] = p
			}

			walk(v, p, lines, values, depth+1)
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			p := prefix + "[" + strconv.Itoa(i) + "]"
			lines[p] = item.Line

			if _, seen := values[[2]int{item.Line, item.Column}]; !seen && values != nil {
				values[[2]int{item.Line, item.Column}] = p
			}

			walk(item, p, lines, values, depth+1)
		}
	}
}

func scalar(n *yaml.Node, key string) string {
	if n.Kind != yaml.MappingNode {
		return ""
	}

	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key && n.Content[i+1].Kind == yaml.ScalarNode {
			return n.Content[i+1].Value
		}
	}

	return ""
}

// Has reports whether the document sets path exactly.
func (d Doc) Has(path string) bool {
	_, ok := d.lines[path]

	return ok
}

// Nearest returns the line of path, or of its longest prefix the document
// sets, and whether path itself is set.
func (d Doc) Nearest(path string) (line int, exact bool) {
	if l, ok := d.lines[path]; ok {
		return l, true
	}

	for p := parent(path); p != ""; p = parent(p) {
		if l, ok := d.lines[p]; ok {
			return l, false
		}
	}

	return 0, false
}

// PathAt returns the path of the value that starts at line and column (as the YAML
// library reports a value of the wrong type), else of the key written on line: the
// deepest key there, or the mapping holding several keys written on it in flow style.
func (d Doc) PathAt(line, column int) string {
	if p, ok := d.valuePaths()[[2]int{line, column}]; ok {
		return p
	}

	var at []string

	for p, l := range d.lines {
		if l == line {
			at = append(at, p)
		}
	}

	if len(at) == 0 {
		return ""
	}

	sort.Slice(at, func(i, j int) bool {
		return depth(at[i]) > depth(at[j]) || depth(at[i]) == depth(at[j]) && at[i] < at[j]
	})

	if len(at) > 1 && depth(at[0]) == depth(at[1]) {
		return parent(at[0])
	}

	return at[0]
}

func depth(path string) int { return strings.Count(path, ".") + strings.Count(path, "[") }

// Match returns the paths the document sets that match pattern, where [*] stands for
// any sequence index, ordered by line.
func (d Doc) Match(pattern string) []string {
	if !strings.Contains(pattern, "[*]") {
		if d.Has(pattern) {
			return []string{pattern}
		}

		return nil
	}

	re := regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(pattern), `\[\*\]`, `\[[^\]]*\]`) + "$")

	var out []string

	for p := range d.lines {
		if re.MatchString(p) {
			out = append(out, p)
		}
	}

	sort.Slice(out, func(i, j int) bool {
		return d.lines[out[i]] < d.lines[out[j]] || d.lines[out[i]] == d.lines[out[j]] && out[i] < out[j]
	})

	return out
}

// Paths returns every path the document sets.
func (d Doc) Paths() []string {
	out := make([]string, 0, len(d.lines))
	for p := range d.lines {
		out = append(out, p)
	}

	return out
}

// parent strips the last key or index of a path.
func parent(path string) string {
	i := strings.LastIndexAny(path, ".[")
	if i <= 0 {
		return ""
	}

	return path[:i]
}

// Empty reports whether the stream holds no document with content.
func (ix *Index) Empty() bool { return ix.firstDoc() == -1 }

// SecondDoc returns the second document with content, or -1 when there is none.
func (ix *Index) SecondDoc() int {
	first := ix.firstDoc()
	if first < 0 {
		return -1
	}

	for i := first + 1; i < len(ix.Docs); i++ {
		if !ix.Docs[i].empty {
			return i
		}
	}

	return -1
}

func (ix *Index) firstDoc() int {
	for i, d := range ix.Docs {
		if !d.empty {
			return i
		}
	}

	return -1
}

// DocAt returns the document that contains line, or -1.
func (ix *Index) DocAt(line int) int {
	found := -1

	for i, d := range ix.Docs {
		if d.Line <= line {
			found = i
		}
	}

	return found
}

// Find returns the index of the first document of the given kind (empty for v1alpha1), or -1.
func (ix *Index) Find(kind, name string) int {
	for i, d := range ix.Docs {
		if d.Kind == kind && (name == "" || d.Name == name) {
			return i
		}
	}

	return -1
}

// Problem is a YAML error with the line and column it refers to (0 when unknown).
type Problem struct {
	Line    int
	Column  int
	Message string
}

// Problems unpacks the errors of the YAML library into lines and messages. Messages
// lose the values the library quotes (see WithoutValues): the value may be a secret
// copied where it does not fit.
func Problems(err error) []Problem {
	var over *BudgetError
	if errors.As(err, &over) {
		return []Problem{{Line: over.Line, Column: over.Column, Message: over.Msg}}
	}

	var many *yaml.LoadErrors
	if errors.As(err, &many) && len(many.Errors) > 0 {
		out := make([]Problem, 0, len(many.Errors))
		for _, e := range many.Errors {
			out = append(out, Problem{Line: e.Mark.Line, Column: e.Mark.Column, Message: WithoutValues(e.Message)})
		}

		return out
	}

	var one *yaml.LoadError
	if errors.As(err, &one) {
		return []Problem{{Line: one.Mark.Line, Column: one.Mark.Column, Message: WithoutValues(one.Message)}}
	}

	return []Problem{{Message: WithoutValues(err.Error())}}
}

// quotedRe matches what decoders quote in their messages: `value` (the YAML library),
// "value" (strconv, net/url, %q) and 'value'. Quoted single characters are syntax the
// scanner names (did not find expected ',' or ']'), not values; neither is text with
// spaces between two single quotes.
var quotedRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\s*(` + "`[^`]*`" + `|"(?:[^"\\]|\\.){2,}"|'[^'\s]{2,}')`)
})

// WithoutValues drops the quoted parts of a decoder's message, which are the values it
// could not decode: "cannot construct !!str `m1tkhQ/...` into bool" becomes "cannot
// construct !!str into bool". A value without quotes around it is not recognised.
func WithoutValues(msg string) string {
	return quotedRe().ReplaceAllString(msg, "")
}
