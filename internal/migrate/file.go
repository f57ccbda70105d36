package migrate

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"
)

// file is one patch file being rewritten.
type file struct {
	patch Patch
	res   *Result
	docs  []*yaml.Node
	// v1 is the file's v1alpha1 document, at v1Index in docs.
	v1      *yaml.Node
	v1Index int
	// added counts the documents inserted after v1.
	added   int
	changed bool
	// scheduling says the repository lets workloads run on control planes: a
	// KubeNodeConfig written for control planes carries no NoSchedule taint then.
	scheduling bool
	// everyControlPlane says every control plane of the repository uses the file.
	everyControlPlane bool
	// role is set on a file the migration adds (newFile): the patches.<role> list of
	// talops.yaml that names it.
	role string
}

// body is the v1alpha1 document's top mapping.
func (f *file) body() *yaml.Node { return f.v1.Content[0] }

// doc is the mapping of the file's document of kind (and name), made after the v1alpha1
// document (after the ones made before it) when the file has none.
func (f *file) doc(kind, name string) *yaml.Node {
	for _, d := range f.docs {
		if d.Kind != yaml.DocumentNode || len(d.Content) != 1 {
			continue
		}

		m := d.Content[0]
		if _, k := get(m, "kind"); k != nil && k.Value == kind {
			if _, n := get(m, "name"); name == "" || (n != nil && n.Value == name) {
				return m
			}
		}
	}

	m := mapping()
	set(m, "apiVersion", str("v1alpha1"))
	set(m, "kind", str(kind))

	if name != "" {
		set(m, "name", str(name))
	}

	d := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{m}}
	pos := f.v1Index + 1 + f.added
	f.docs = slices.Insert(f.docs, pos, d)
	f.added++

	return m
}

// take removes the value at a dotted path of the v1alpha1 document and every mapping it
// leaves empty; the comments of the removed keys come back to head what replaces them.
func (f *file) take(path string) (k, v *yaml.Node, comment string) {
	parts := strings.Split(path, ".")
	chain := []*yaml.Node{f.body()}
	keysOf := []*yaml.Node{}

	for _, p := range parts {
		pk, pv := get(chain[len(chain)-1], p)
		if pv == nil {
			return nil, nil, ""
		}

		keysOf = append(keysOf, pk)
		chain = append(chain, pv)
	}

	k, v = keysOf[len(keysOf)-1], chain[len(chain)-1]
	comments := []string{k.HeadComment}

	for i := len(parts) - 1; i >= 0; i-- {
		parent := chain[i]
		del(parent, parts[i])

		if i == 0 || len(parent.Content) > 0 {
			break
		}

		// The parent is empty now: it goes too, with its comment.
		comments = append([]string{keysOf[i-1].HeadComment}, comments...)
		parts = parts[:i]
	}

	f.changed = true

	return k, v, joinComments(comments...)
}

// moved records a move and heads the new document with the comments the old place had.
func (f *file) moved(line int, from, to string, doc *yaml.Node, comment string) {
	f.res.Moved = append(f.res.Moved, Move{File: f.patch.Path, Line: line, From: from, To: to})

	if comment != "" && len(doc.Content) > 0 {
		doc.Content[0].HeadComment = joinComments(doc.Content[0].HeadComment, comment)
	}
}

// left records a field that stays, and why.
func (f *file) left(path, reason string) {
	line := f.v1.Line
	if k, _ := at(f.body(), path); k != nil {
		line = k.Line
	}

	f.res.Left = append(f.res.Left, Left{File: f.patch.Path, Line: line, Path: path, Reason: reason})
}

// unknownKeys are the keys of m outside allowed.
func unknownKeys(m *yaml.Node, allowed ...string) []string {
	var out []string

	for _, k := range keys(m) {
		if !slices.Contains(allowed, k) {
			out = append(out, k)
		}
	}

	return out
}
