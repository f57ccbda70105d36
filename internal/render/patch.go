package render

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"

	jsonpatch "github.com/evanphx/json-patch"
	ghodssyaml "github.com/ghodss/yaml"
	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/config"
	"github.com/siderolabs/talos/pkg/machinery/config/configloader"
	"github.com/siderolabs/talos/pkg/machinery/config/configpatcher"
	"github.com/siderolabs/talos/pkg/machinery/config/container"
	"github.com/siderolabs/talos/pkg/machinery/config/encoder"
	"github.com/siderolabs/talos/pkg/machinery/config/types/v1alpha1"
	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/yamlpos"
)

// patch is a loaded patch file.
type patch struct {
	file string
	// index locates the file's own keys.
	index *yamlpos.Index
	// layer locates the config paths the file sets: index itself for strategic merge
	// patches, the operations' paths and values for RFC 6902 patches.
	layer *yamlpos.Index
	// ops are an RFC 6902 patch's operations as written.
	ops []yamlpos.JSONPatchOp
	p   configpatcher.Patch
	// data is the file's bytes for a patch loaded without an index (loadUnindexed).
	data []byte
	// id tells apart the patches a PatchCache keeps (0: not kept).
	id int
}

// loadPatch parses a patch file (strategic merge, single or multi-document, or RFC 6902
// as JSON or YAML). Errors are *cluster.InputError placed at the offending line.
func loadPatch(file string, data []byte) (*patch, error) {
	ix, err := yamlpos.Parse(data)
	if err != nil {
		return nil, syntaxError(file, nil, err)
	}

	if ix.Empty() {
		return nil, &cluster.InputError{File: file, Msg: "patch is empty"}
	}

	if err := checkDocNames(file, ix); err != nil {
		return nil, err
	}

	p, err := configpatcher.LoadPatch(data)
	if err != nil {
		return nil, loadError(file, ix, err)
	}

	jp, isJSON := p.(jsonpatch.Patch)
	if !isJSON {
		return &patch{file: file, index: ix, layer: ix, p: p}, nil
	}

	// Machinery reads the first document of an RFC 6902 patch and drops the others
	// without a word.
	if d := ix.SecondDoc(); d > 0 {
		return nil, &cluster.InputError{File: file, Line: ix.Docs[d].Line,
			Msg: "an RFC 6902 patch file holds one document and the documents after it would be ignored: move them to a patch file of their own"}
	}

	ops, layer, ok := yamlpos.JSONPatch(data)
	if !ok || len(ops) != len(jp) {
		ops, layer = nil, ix
	}

	if len(jp) > MaxPatchOps {
		line := 1
		if ops != nil {
			line = ops[MaxPatchOps].Line
		}

		return nil, &cluster.InputError{File: file, Line: line,
			Msg: fmt.Sprintf("an RFC 6902 patch holds %d operations, more than the %d talops applies from one file (the first one past them is here): split it, or set the values with a strategic merge patch", len(jp), MaxPatchOps)}
	}

	return &patch{file: file, index: ix, layer: layer, ops: ops, p: jp}, nil
}

// MaxPatchOps is how many operations one RFC 6902 patch file may hold: inserts into a list
// apply in linear time (patch_inserts.go), with replaces, removes and tests of its items
// among them, but those between other operations on the list (below its items, moves,
// copies), or too few to repay a pass, still cost the library a copy of the list each;
// issue 11's 8,000 fit.
const MaxPatchOps = 10000

// opsPerCheck is how many operations of an RFC 6902 patch apply between two looks at the
// context. Batches also bound the library's per-call cost, which grows faster than the
// operations: 40,000 inserts at a list's head took 34s in one call, 29s in batches of
// 1,000 (46s in batches of 250, each decoding the document again), and a cancelled render
// stops within one batch, under a second.
const opsPerCheck = 1000

func (p *patch) apply(ctx context.Context, cfg coreconfig.Provider) (coreconfig.Provider, error) {
	if jp, ok := p.p.(jsonpatch.Patch); ok {
		return p.applyJSON6902(ctx, cfg, jp)
	}

	out, err := configpatcher.Apply(configpatcher.WithConfig(cfg), []configpatcher.Patch{p.p})
	if err != nil {
		return nil, &cluster.InputError{File: p.file, Line: 1, Msg: "apply patch: " + yamlpos.WithoutValues(redactPatchError(err))}
	}

	merged, err := out.Config()
	if err != nil {
		return nil, loadError(p.file, p.indexed(), err)
	}

	return merged, nil
}

// applyJSON6902 applies an RFC 6902 patch to the v1alpha1 document alone, since
// machinery refuses JSON patches on multi-document configs. Errors point at the
// operation that failed, or at the operation that set an unknown key.
func (p *patch) applyJSON6902(ctx context.Context, cfg coreconfig.Provider, jp jsonpatch.Patch) (coreconfig.Provider, error) {
	var (
		v1     *v1alpha1.Config
		others []config.Document
	)

	for _, doc := range cfg.Documents() {
		if c, ok := doc.(*v1alpha1.Config); ok {
			v1 = c

			continue
		}

		others = append(others, doc)
	}

	if v1 == nil {
		return nil, &cluster.InputError{File: p.file, Line: 1, Msg: "RFC 6902 patch: the config has no v1alpha1 document to patch"}
	}

	data, err := container.NewV1Alpha1(v1).EncodeBytes(encoder.WithComments(encoder.CommentsDisabled))
	if err != nil {
		return nil, err
	}

	patched, err := json6902(ctx, data, jp)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}

	if err != nil {
		return nil, p.opError(ctx, data, jp, err)
	}

	loaded, err := configloader.NewFromBytes(patched)
	if err != nil {
		return nil, p.patchedError(patched, err)
	}

	docs := append(loaded.Documents(), others...)

	return container.New(docs...)
}

const json6902Prefix = "failure applying rfc6902 patches to talos machine config: "

// json6902 is configpatcher.JSON6902 on a single-document config, in batches of
// opsPerCheck operations with a look at ctx before each: applying ops in order, batch by
// batch, is applying them all.
func json6902(ctx context.Context, data []byte, jp jsonpatch.Patch) ([]byte, error) {
	doc, err := ghodssyaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("failure converting talos machine config to json: %w", err)
	}

	if doc, err = applyJSON(ctx, doc, jp); err != nil {
		return nil, err
	}

	out, err := ghodssyaml.JSONToYAML(doc)
	if err != nil {
		return nil, fmt.Errorf("failure converting talos machine config from json to yaml: %w", err)
	}

	return out, nil
}

// applyJSON applies jp to a JSON document: the inserts into one list of a span in linear
// time (patch_inserts.go), the other operations by the library in batches of at most
// opsPerCheck, with a look at ctx before each span and batch.
func applyJSON(ctx context.Context, doc []byte, jp jsonpatch.Patch) ([]byte, error) {
	return applyJSONAt(ctx, doc, jp, newSpanFinder(readOps(jp), len(doc)+MaxPatchGrowth), 0)
}

// maxSpanDepth is how many lists' inserts, interleaved, get spans of their own: a span's
// other operations (inserts into other lists among them) apply as a patch of their own,
// down to this depth, then in plain batches.
const maxSpanDepth = 3

func applyJSONAt(ctx context.Context, doc []byte, jp jsonpatch.Patch, sf *spanFinder, depth int) ([]byte, error) {
	ops := sf.ops
	// plainUntil ends a span the library applies: its adds start no span again.
	plainUntil := 0

	for start := 0; start < len(jp); {
		if err := ctx.Err(); err != nil {
			return nil, err
		}

		end := start + 1

		if start >= plainUntil && depth < maxSpanDepth && sf.startsRun(start) {
			// A span is as long as it goes: its inserts cost one pass over the document,
			// however many.
			spanEnd, adds := insertSpan(ops, start)

			out, ok, err := applySpan(ctx, doc, jp, sf, start, spanEnd, adds, depth)
			if err != nil {
				return nil, err
			}

			if ok {
				doc, start = out, spanEnd

				continue
			}

			// One the span cannot place: the library applies the span in order, or says
			// why not.
			plainUntil = spanEnd
		}

		end = sf.batchEnd(doc, start, end, plainUntil, depth)

		if err := shiftsLongList(doc, ops[start:end]); err != nil {
			return nil, err
		}

		var err error
		if doc, err = jp[start:end].Apply(doc); err != nil {
			return nil, fmt.Errorf("%s%w", json6902Prefix, err)
		}

		if len(doc) > sf.limit {
			return nil, errPatchedTooLarge
		}

		start = end
	}

	return doc, nil
}

// batchEnd is where the library's batch from start ends, at least at end. Every operation
// but a span goes to the library in batches of opsPerCheck, up to the next span: each batch
// is a pass over the whole document, so a batch per operation (an insert, then an operation
// on the list's items, and again) made a patch's cost its operations times its document,
// which the inserts grow. A copy may double the document, so a batch holds only as many as
// keep it within its bound; a value with a list longer than MaxShiftedList ends it, so that
// the list is seen before an operation moves it.
func (f *spanFinder) batchEnd(doc []byte, start, end, plainUntil, depth int) int {
	ops := f.ops

	copies, allowed := 0, copiesWithin(len(doc), f.limit)
	if ops[start].copies {
		copies++
	}

	for end < len(ops) && end-start < opsPerCheck && (end < plainUntil || depth >= maxSpanDepth || !f.startsRun(end)) {
		if ops[end-1].longList {
			break
		}

		if ops[end].copies {
			if copies >= allowed {
				break
			}

			copies++
		}

		end++
	}

	return end
}

// MaxShiftedList is the longest list an RFC 6902 patch may insert into or remove from by
// index, through the library, which moves the whole list each time: beside a list of
// 200,000 items, 5,000 inserts each followed by a replace took 14s (a batch of them 1.4s
// after a cancellation), and a 4 MiB file lists ten times as many. At the bound 10,000 such
// operations take seconds. Runs of inserts (patch_inserts.go) are not bounded by it.
const MaxShiftedList = 100000

// errListTooLong is an RFC 6902 patch that moves a list longer than MaxShiftedList.
type errListTooLong struct{ items int }

func (e errListTooLong) Error() string {
	return fmt.Sprintf("the patch inserts into or removes from a list while the config holds one of %d items, more than the %d talops moves by index: set long lists with a strategic merge patch", e.items, MaxShiftedList)
}

// shiftsLongList refuses a batch of operations that moves a list while doc holds one longer
// than MaxShiftedList (any list: which one an operation moves is only known by applying it).
func shiftsLongList(doc []byte, ops []opInfo) error {
	if !slices.ContainsFunc(ops, func(o opInfo) bool { return o.shifts }) {
		return nil
	}

	if n := longestList(doc); n > MaxShiftedList {
		return errListTooLong{items: n}
	}

	return nil
}

// MaxPatchGrowth bounds how much an RFC 6902 patch may grow the document it patches, as
// JSON. Without copies a patch adds at most its own values, which its file's size bounds;
// each copy may double the document, and 22 copies of a list into itself, a patch of 2 KB,
// made 256 MB.
const MaxPatchGrowth = 2 * cluster.MaxFileSize

var errPatchedTooLarge = fmt.Errorf("the patch grows the machine config by more than %d bytes: copy less, or set the values themselves", MaxPatchGrowth)

// copiesWithin is how many copies one batch may hold on a document of size bytes: each at
// most doubles it, so that together they stay within limit; at least one.
func copiesWithin(size, limit int) int {
	n := 1
	for n < 30 && size<<(n+1) <= limit {
		n++
	}

	return n
}

// opError places a failed RFC 6902 patch at the operation that fails. Operations apply
// one after the other, so a prefix of the patch fails exactly when it holds the first
// operation that fails: a binary search over prefixes finds it in O(log n) applications
// of the patch, where re-applying the operations one at a time (each a conversion of a
// growing document) took minutes for a few thousand operations.
func (p *patch) opError(ctx context.Context, data []byte, jp jsonpatch.Patch, err error) error {
	msg := "RFC 6902 patch: " + strings.TrimPrefix(redactPatchError(err), json6902Prefix)

	if len(p.ops) != len(jp) {
		return &cluster.InputError{File: p.file, Line: 1, Msg: msg}
	}

	// As machinery does, but once: the probes need not convert the result back to YAML.
	doc, convErr := ghodssyaml.YAMLToJSON(data)
	if convErr != nil {
		return &cluster.InputError{File: p.file, Line: 1, Msg: msg}
	}

	// Each probe applies inserts in linear time, as the patch itself did.
	i := sort.Search(len(jp), func(k int) bool {
		_, prefixErr := applyJSON(ctx, doc, jp[:k+1])

		return prefixErr != nil
	})
	if ctx.Err() != nil {
		return ctx.Err()
	}

	if i == len(jp) {
		// The patch fails as a whole but no prefix does: not an operation's fault.
		return &cluster.InputError{File: p.file, Line: 1, Msg: msg}
	}

	// The first failing operation fails on the same document as in the whole patch, so
	// its error is the whole patch's.
	return &cluster.InputError{File: p.file, Line: p.ops[i].PathLine, Field: p.ops[i].Path, Msg: msg}
}

// patchedError places the loader's errors about the document an RFC 6902 patch made.
// The loader's lines are the patched document's, not the patch file's: each becomes the
// config path of the value it is about, placed at the operation that set that path.
func (p *patch) patchedError(patched []byte, err error) error {
	probs := yamlpos.Problems(err)
	if probs[0].Line == 0 {
		return loadError(p.file, p.layer, err)
	}

	out, parseErr := yamlpos.Parse(patched)

	errs := make([]error, 0, len(probs))

	for _, pr := range probs {
		field := ""
		if parseErr == nil {
			if d := out.DocAt(pr.Line); d >= 0 {
				field = out.Docs[d].PathAt(pr.Line, pr.Column)
			}
		}

		line := 0
		if field != "" && len(p.layer.Docs) > 0 {
			line, _ = p.layer.Docs[0].Nearest(field)
		}

		errs = append(errs, &cluster.InputError{File: p.file, Line: line, Field: field, Msg: "YAML: " + pr.Message})
	}

	return errors.Join(errs...)
}

// checkDocNames refuses documents whose name holds a line break or another control
// character: the name is shown in plans, comments and annotations, where a line break
// could start lines of its own.
func checkDocNames(file string, ix *yamlpos.Index) error {
	var errs []error

	for _, d := range ix.Docs {
		if strings.ContainsFunc(d.Name, unicode.IsControl) {
			errs = append(errs, &cluster.InputError{File: file, Line: d.Line, Field: "name",
				Msg: "a document's name must not hold a line break or another control character"})
		}
	}

	return errors.Join(errs...)
}

// syntaxError places a YAML error; with the file's index it also names the field whose
// value the error is about (a value of the wrong type).
func syntaxError(file string, ix *yamlpos.Index, err error) error {
	var errs []error
	for _, p := range yamlpos.Problems(err) {
		field := ""
		if ix != nil {
			if d := ix.DocAt(p.Line); d >= 0 {
				field = ix.Docs[d].PathAt(p.Line, p.Column)
			}
		}

		errs = append(errs, &cluster.InputError{File: file, Line: p.Line, Field: field, Msg: "YAML: " + p.Message})
	}

	return errors.Join(errs...)
}

var docLineRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\(line (\d+)\)`) })

const unknownKeysMarker = "unknown keys found during decoding:\n"

// loadError turns machinery's loader errors into placed input errors. Unknown keys are
// reported one per key with their line, and without the values machinery echoes back.
func loadError(file string, ix *yamlpos.Index, err error) error {
	if probs := yamlpos.Problems(err); probs[0].Line > 0 {
		return syntaxError(file, ix, err)
	}

	msg := err.Error()

	before, summary, found := strings.Cut(msg, unknownKeysMarker)
	if !found {
		line := 0
		if m := docLineRe().FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
		}

		return &cluster.InputError{File: file, Line: line, Msg: yamlpos.WithoutValues(redactPatchError(err))}
	}

	doc := 0
	if m := docLineRe().FindStringSubmatch(before); m != nil {
		line, _ := strconv.Atoi(m[1])
		if d := ix.DocAt(line); d >= 0 {
			doc = d
		}
	}

	var tree yaml.Node
	if yaml.Unmarshal([]byte(summary), &tree) != nil {
		return &cluster.InputError{File: file, Msg: "unknown keys"}
	}

	var paths []string
	if doc < len(ix.Docs) && ix.Docs[doc].Kind == "" {
		unknownPaths(&tree, reflect.TypeFor[v1alpha1.Config](), "", &paths, 0)
	} else {
		topKeys(&tree, &paths)
	}

	errs := make([]error, 0, len(paths))
	seen := map[string]bool{}

	for _, p := range paths {
		if doc >= len(ix.Docs) {
			errs = append(errs, &cluster.InputError{File: file, Field: p, Msg: "unknown key" + kindHint(ix, doc)})

			continue
		}

		// Machinery's summary drops sequence indexes: the file has them.
		found := ix.Docs[doc].Match(p)
		if len(found) == 0 {
			found = []string{p}
		}

		for _, f := range found {
			if seen[f] {
				continue
			}

			seen[f] = true
			line, _ := ix.Docs[doc].Nearest(f)
			errs = append(errs, &cluster.InputError{File: file, Line: line, Field: f, Msg: "unknown key" + kindHint(ix, doc)})
		}
	}

	if len(errs) == 0 {
		return &cluster.InputError{File: file, Msg: "unknown keys"}
	}

	return errors.Join(errs...)
}

func kindHint(ix *yamlpos.Index, doc int) string {
	if doc < len(ix.Docs) && ix.Docs[doc].Kind != "" {
		return " in " + ix.Docs[doc].Kind
	}

	return ""
}

// unknownPaths walks machinery's summary of unknown keys (a tree holding only the
// paths that lead to them) and returns where each unknown key starts: the first key
// along each path that typ does not declare.
func unknownPaths(n *yaml.Node, typ reflect.Type, prefix string, out *[]string, depth int) {
	if depth > 64 {
		return
	}

	if n.Kind == yaml.DocumentNode {
		for _, c := range n.Content {
			unknownPaths(c, typ, prefix, out, depth+1)
		}

		return
	}

	for typ != nil && typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}

	switch {
	case n.Kind == yaml.MappingNode && typ != nil && typ.Kind() == reflect.Struct:
		fields := structFields(typ)

		for i := 0; i+1 < len(n.Content); i += 2 {
			p := joinPath(prefix, n.Content[i].Value)

			ft, ok := fields[n.Content[i].Value]
			if !ok {
				*out = append(*out, p)

				continue
			}

			unknownPaths(n.Content[i+1], ft, p, out, depth+1)
		}
	case n.Kind == yaml.MappingNode && typ != nil && typ.Kind() == reflect.Map:
		for i := 0; i+1 < len(n.Content); i += 2 {
			unknownPaths(n.Content[i+1], typ.Elem(), joinPath(prefix, n.Content[i].Value), out, depth+1)
		}
	case n.Kind == yaml.SequenceNode && typ != nil && typ.Kind() == reflect.Slice && prefix != "":
		// The summary keeps only the items with unknown keys, without their indexes.
		for _, item := range n.Content {
			unknownPaths(item, typ.Elem(), prefix+"[*]", out, depth+1)
		}
	default:
		if prefix != "" {
			*out = append(*out, prefix)
		}
	}
}

// structFields maps yaml keys to field types, following inline fields.
func structFields(typ reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}

	for i := range typ.NumField() {
		f := typ.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")

		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}

		switch {
		case name == "-":
		case strings.Contains(opts, "inline") && ft.Kind() == reflect.Struct:
			maps.Copy(out, structFields(ft))
		case !f.IsExported():
		case name == "":
			out[strings.ToLower(f.Name)] = f.Type
		default:
			out[name] = f.Type
		}
	}

	return out
}

func joinPath(prefix, key string) string {
	if prefix == "" {
		return key
	}

	return prefix + "." + key
}

// topKeys lists the first-level keys of a summary (typed documents are shallow).
func topKeys(n *yaml.Node, out *[]string) {
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}

	if n.Kind != yaml.MappingNode {
		return
	}

	for i := 0; i+1 < len(n.Content); i += 2 {
		*out = append(*out, n.Content[i].Value)
	}
}

// redactPatchError keeps the first line of a machinery error: later lines may echo
// document contents.
func redactPatchError(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")

	return msg
}
