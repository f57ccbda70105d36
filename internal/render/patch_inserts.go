package render

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	jsonpatch "github.com/evanphx/json-patch"
)

// The RFC 6902 library inserts into a list by copying it whole, so n inserts into one list
// cost n² (40,000 at a list's head held a runner for minutes). A run of consecutive adds
// into the same list is applied here instead, as the one replace of that list by its
// final contents, which a Fenwick tree places in O((m+n) log(m+n)): the library still
// reads the path and writes the document. Whatever this file is not sure of (the list is
// not a list, an index is out of range, a path it does not follow the library's way) goes
// to the library, which applies it or says why not as it always did.

// minInsertRun is the shortest run applied as one replace: each run costs a pass over the
// document, which a run of fewer inserts does not repay.
const minInsertRun = 64

// insertOp is one add of a run: where, in the list as it is then ("-": its end), and what.
type insertOp struct {
	key   string
	value json.RawMessage
}

// insertRun returns the parent path and the adds of the run that starts at jp[i], or nil
// when jp[i] starts none.
func insertRun(jp jsonpatch.Patch, i int) (string, []insertOp) {
	parent, first, ok := listAdd(jp[i])
	if !ok {
		return "", nil
	}

	run := []insertOp{first}

	for _, op := range jp[i+1:] {
		p, ins, ok := listAdd(op)
		if !ok || p != parent {
			break
		}

		run = append(run, ins)
	}

	return parent, run
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
