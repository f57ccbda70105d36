package plan

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"

	"github.com/siderolabs/talos/pkg/machinery/config/config"
	"github.com/siderolabs/talos/pkg/machinery/config/configpatcher"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/yamlpos"
)

// writeInputs adds every input file to the hash, by path, each as its path and its bytes,
// both length-prefixed: the plan's content is what the inputs mean, and two inputs can mean
// the same (a CEL comment that swallows the rest of its line, whitespace in a literal,
// a value the diffs redact) where their bytes differ.
func writeInputs(h io.Writer, inputs []cluster.Input) {
	var n [8]byte

	field := func(b []byte) {
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		_, _ = h.Write(n[:])
		_, _ = h.Write(b)
	}

	for _, in := range inputs {
		field([]byte(in.Path))
		field(in.Data)
	}
}

// secretValuesChanged lists the machine-config files (patches, node configs) whose secret
// values differ between the two states, by path: the diffs redact those values, so without
// this a new machine.token in a patch reads as nothing. A file present in one state only
// counts when it sets a secret value. Only the paths are kept; the values are compared,
// never kept or shown. A file that does not load as strategic merge documents (an RFC 6902
// patch, a file with errors, which render reports) is not judged here: the hash still binds
// its bytes.
func secretValuesChanged(current, desired []cluster.Input) []string {
	was := map[string][]byte{}

	for _, in := range current {
		if in.Config {
			was[in.Path] = in.Data
		}
	}

	var out []string

	for _, in := range desired {
		if !in.Config {
			continue
		}

		old, ok := was[in.Path]
		delete(was, in.Path)

		if ok && bytes.Equal(old, in.Data) {
			continue
		}

		if secretsDiffer(old, in.Data) {
			out = append(out, in.Path)
		}
	}

	for p, old := range was {
		if secretsDiffer(old, nil) {
			out = append(out, p)
		}
	}

	slices.Sort(out)

	return out
}

// secretsDiffer says whether two versions of a file set different secret values (nil: the
// file is absent).
func secretsDiffer(a, b []byte) bool {
	sa, okA := secretValues(a)
	sb, okB := secretValues(b)

	return okA && okB && !reflect.DeepEqual(sa, sb)
}

// secretValues maps every field of the file's documents that redaction blanks to the value
// it holds ({} for an absent file); false when the file is not strategic merge documents.
func secretValues(data []byte) (map[string]any, bool) {
	out := map[string]any{}
	if data == nil {
		return out, true
	}

	if yamlpos.Check(data) != nil {
		return nil, false
	}

	p, err := configpatcher.LoadPatch(data)
	if err != nil {
		return nil, false
	}

	smp, ok := p.(configpatcher.StrategicMergePatch)
	if !ok {
		return nil, false
	}

	for i, doc := range smp.Documents() {
		redacted := doc.Clone()

		secret, ok := redacted.(config.SecretDocument) // v1alpha1 is one too
		if !ok {
			continue
		}

		secret.Redact(Redacted)

		trees, err := decodeEach([]config.Document{doc, redacted})
		if err != nil {
			return nil, false
		}

		id := doc.Kind() + "/" + strconv.Itoa(i)
		if named, ok := doc.(config.NamedDocument); ok {
			id = doc.Kind() + "/" + named.Name()
		}

		blanked(trees[0], trees[1], id, out)
	}

	return out, true
}

// blanked records in out, by path, the values of full that differ in redacted.
func blanked(full, redacted any, path string, out map[string]any) {
	switch f := full.(type) {
	case map[string]any:
		r, _ := redacted.(map[string]any)
		for k, v := range f {
			blanked(v, r[k], path+"."+k, out)
		}
	case []any:
		r, _ := redacted.([]any)
		for i, v := range f {
			var rv any
			if i < len(r) {
				rv = r[i]
			}

			blanked(v, rv, fmt.Sprintf("%s[%d]", path, i), out)
		}
	default:
		if !reflect.DeepEqual(full, redacted) {
			out[path] = full
		}
	}
}
