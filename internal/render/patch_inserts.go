package render

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	jsonpatch "github.com/evanphx/json-patch"
)

// The RFC 6902 library inserts into a list by copying it whole, so n inserts into one list
// cost n² (40,000 at a list's head held a runner for minutes). The inserts into one list
// of a span of operations are applied here instead, as the one replace of that list by its
// final contents, which a Fenwick tree places in O((m+n) log(m+n)); the span's other
// operations touch neither the list nor a path above it, so they apply before it, in their
// order, with the same result. The library still reads the paths and writes the document.
// Whatever this file is not sure of (the list is not a list, an index is out of range, an
// operation fails) goes to the library, which applies the span in order, or says why not
// as it always did.

// minInsertRun is the fewest inserts a span applies as one replace: each such span costs a
// pass over the document, which fewer inserts do not repay.
const minInsertRun = 64

// insertOp is one add of a run: where, in the list as it is then ("-": its end), and what.
type insertOp struct {
	key   string
	value json.RawMessage
}

// opInfo is what applyJSON reads of an operation, once.
type opInfo struct {
	// listAdd: an add at a list position of parent; ins is where and what.
	listAdd bool
	parent  string
	ins     insertOp
	// paths are the operation's path and from, as segments (nil: unknown, touches all).
	paths [][]string
}

func readOps(jp jsonpatch.Patch) []opInfo {
	out := make([]opInfo, len(jp))

	for i, op := range jp {
		parent, ins, ok := listAdd(op)
		out[i] = opInfo{listAdd: ok, parent: parent, ins: ins, paths: opPaths(op)}
	}

	return out
}

// opPaths are the segments of the paths an operation reads or writes, nil when they cannot
// be told.
func opPaths(op jsonpatch.Operation) [][]string {
	path, err := op.Path()
	if err != nil {
		return nil
	}

	out := [][]string{segments(path)}

	switch op.Kind() {
	case "add", "remove", "replace", "test":
	case "move", "copy":
		from, err := op.From()
		if err != nil {
			return nil
		}

		out = append(out, segments(from))
	default:
		return nil
	}

	return out
}

func segments(path string) []string {
	parts := strings.Split(path, "/")
	for i := range parts {
		parts[i] = pointerUnescape.Replace(parts[i])
	}

	return parts
}

// apart reports whether an operation touches neither the list at parent, nor anything in it,
// nor a path above it.
func (o opInfo) apart(parent []string) bool {
	if o.paths == nil {
		return false
	}

	for _, p := range o.paths {
		n := min(len(p), len(parent))
		if slices.Equal(p[:n], parent[:n]) {
			return false
		}
	}

	return true
}

// insertSpan is the span that starts at ops[i], an add into a list: the operations up to
// the first that touches the list otherwise. It returns where the span ends and the
// indexes of its adds into the list.
func insertSpan(ops []opInfo, i int) (int, []int) {
	parent := segments(ops[i].parent)
	adds := []int{i}

	end := i + 1
	for ; end < len(ops); end++ {
		switch o := ops[end]; {
		case o.listAdd && o.parent == ops[i].parent:
			adds = append(adds, end)
		case !o.apart(parent):
			return end, adds
		}
	}

	return end, adds
}

// applySpan applies jp[start:end], whose adds into the list at parent are at adds, with
// the inserts placed here, or says it cannot (ok false). The other operations apply first,
// as a patch of their own one level down; only a cancellation is an error.
func applySpan(ctx context.Context, doc []byte, jp jsonpatch.Patch, ops []opInfo, start, end int, adds []int, depth int) ([]byte, bool, error) {
	others := make(jsonpatch.Patch, 0, end-start-len(adds))
	run := make([]insertOp, 0, len(adds))

	next := 0

	for i := start; i < end; i++ {
		if next < len(adds) && adds[next] == i {
			run = append(run, ops[i].ins)
			next++

			continue
		}

		others = append(others, jp[i])
	}

	if len(others) > 0 {
		var err error
		if doc, err = applyJSONAt(ctx, doc, others, depth+1); err != nil {
			return nil, false, ctx.Err()
		}
	}

	out, ok := applyInserts(doc, ops[start].parent, run)

	return out, ok, nil
}

// listAdd reads an add whose last path element is a list position: an index the library
// reads as one (strconv.Atoi) or "-".
func listAdd(op jsonpatch.Operation) (string, insertOp, bool) {
	if op.Kind() != "add" {
		return "", insertOp{}, false
	}

	path, err := op.Path()
	if err != nil {
		return "", insertOp{}, false
	}

	cut := strings.LastIndexByte(path, '/')
	if cut <= 0 {
		return "", insertOp{}, false
	}

	key := path[cut+1:]
	if _, err := strconv.Atoi(key); err != nil && key != "-" {
		return "", insertOp{}, false
	}

	v, ok := op["value"]
	if !ok || v == nil {
		return "", insertOp{}, false
	}

	return path[:cut], insertOp{key: key, value: *v}, true
}

// applyInserts applies a run of adds into the list at parent, or says it cannot (ok
// false) and leaves the run to the library.
func applyInserts(doc []byte, parent string, run []insertOp) ([]byte, bool) {
	list, ok := listAt(doc, parent)
	if !ok {
		return nil, false
	}

	slots, ok := placeInserts(len(list), run)
	if !ok {
		return nil, false
	}

	merged := make([]json.RawMessage, len(list)+len(run))
	for j, at := range slots {
		merged[at] = run[j].value
	}

	next := 0

	for at := range merged {
		if merged[at] == nil {
			merged[at] = list[next]
			next++
		}
	}

	value, err := json.Marshal(merged)
	if err != nil {
		return nil, false
	}

	path, _ := json.Marshal(parent) //nolint:errchkjson // a string always encodes
	kind := json.RawMessage(`"replace"`)
	rawPath := json.RawMessage(path)
	rawValue := json.RawMessage(value)

	out, err := jsonpatch.Patch{{"op": &kind, "path": &rawPath, "value": &rawValue}}.Apply(doc)
	if err != nil {
		return nil, false
	}

	return out, true
}

// listAt is the list at an RFC 6901 path of doc, followed through objects by key and
// through lists by an index in range, as the library follows them.
func listAt(doc []byte, path string) ([]json.RawMessage, bool) {
	cur := json.RawMessage(doc)

	for _, part := range strings.Split(path, "/")[1:] {
		part = pointerUnescape.Replace(part)

		switch firstByte(cur) {
		case '{':
			var obj map[string]json.RawMessage
			if json.Unmarshal(cur, &obj) != nil {
				return nil, false
			}

			next, ok := obj[part]
			if !ok {
				return nil, false
			}

			cur = next
		case '[':
			var list []json.RawMessage
			if json.Unmarshal(cur, &list) != nil {
				return nil, false
			}

			idx, err := strconv.Atoi(part)
			if err != nil || idx < 0 || idx >= len(list) {
				return nil, false
			}

			cur = list[idx]
		default:
			return nil, false
		}
	}

	if firstByte(cur) != '[' {
		return nil, false
	}

	var list []json.RawMessage
	if json.Unmarshal(cur, &list) != nil {
		return nil, false
	}

	return list, true
}

var pointerUnescape = strings.NewReplacer("~1", "/", "~0", "~")

func firstByte(raw []byte) byte {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return 0
	}

	return raw[0]
}

// placeInserts returns where each add of a run ends up in the final list of m+len(run)
// items, or false when one is out of range (the library says so in its own words). An add
// at position p of the list as it is then (the library's reading: "-" is its end, a
// negative index counts from after its end) lands, once the later adds are placed, on the
// p-th slot the later adds left free: taking the adds from the last, each one's slot is
// found in O(log n) in a Fenwick tree of the free slots.
func placeInserts(m int, run []insertOp) ([]int, bool) {
	pos := make([]int, len(run))

	for j, op := range run {
		size := m + j // the list's length when op applies

		switch op.key {
		case "-":
			pos[j] = size
		default:
			idx, err := strconv.Atoi(op.key)
			if err != nil {
				return nil, false
			}

			if idx < 0 {
				// As the library reads a negative index (SupportNegativeIndices).
				if !jsonpatch.SupportNegativeIndices || idx < -(size+1) {
					return nil, false
				}

				idx += size + 1
			}

			if idx > size {
				return nil, false
			}

			pos[j] = idx
		}
	}

	free := newFenwick(m + len(run))
	slots := make([]int, len(run))

	for j := len(run) - 1; j >= 0; j-- {
		slots[j] = free.nth(pos[j])
		free.add(slots[j], -1)
	}

	return slots, true
}

// fenwick counts free slots: each starts at 1.
type fenwick struct {
	tree []int
	high int // the highest power of two not above len(tree)-1
}

func newFenwick(n int) *fenwick {
	f := &fenwick{tree: make([]int, n+1), high: 1}

	for i := 1; i <= n; i++ {
		f.tree[i]++
		if j := i + i&-i; j <= n {
			f.tree[j] += f.tree[i]
		}
	}

	for f.high*2 <= n {
		f.high *= 2
	}

	return f
}

// add adds d to slot i (0-based).
func (f *fenwick) add(i, d int) {
	for i++; i < len(f.tree); i += i & -i {
		f.tree[i] += d
	}
}

// nth is the slot (0-based) of the k-th free one (0-based): k must be below the count.
func (f *fenwick) nth(k int) int {
	at := 0

	for step := f.high; step > 0; step /= 2 {
		if next := at + step; next < len(f.tree) && f.tree[next] <= k {
			at = next
			k -= f.tree[next]
		}
	}

	return at
}
