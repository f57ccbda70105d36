package render

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	jsonpatch "github.com/evanphx/json-patch"
)

// The RFC 6902 library inserts into a list by copying it whole, so n inserts into one list
// cost n² (40,000 at a list's head held a runner for minutes). The inserts into one list
// of a span of operations are applied here instead, as the one replace of that list by its
// final contents, which a Fenwick tree places in O((m+n) log(m+n)); with replaces, removes
// and tests of its items by index among them, all apply in order to the list in blocks
// (blockList), O(√(m+n)) each. The span's other operations touch neither the list nor a
// path above it, so they apply before it, in their order, with the same result. The library still reads the paths and writes the document.
// Whatever this file is not sure of (the list is not a list, an index is out of range, an
// operation fails) goes to the library, which applies the span in order, or says why not
// as it always did.

// minInsertRun is the fewest inserts a span applies as one replace: each such span costs a
// pass over the document, which fewer inserts do not repay.
const minInsertRun = 64

// insertOp is one add of a run: where, in the list as it is then ("-": its end), and what;
// or, with kind, a replace, remove or test of the item at an index.
type insertOp struct {
	key   string
	value json.RawMessage
	// kind is "" for an add, else "replace", "remove" or "test".
	kind string
}

// opInfo is what applyJSON reads of an operation, once.
type opInfo struct {
	// listAdd: an add at a list position of parent; ins is where and what. item: a
	// replace, remove or test of an item of parent by its index, in ins.
	listAdd, item bool
	parent        string
	ins           insertOp
	// paths are the operation's path and from, as segments (nil: unknown, touches all).
	paths [][]string
	// copies: a copy, which may double the document.
	copies bool
	// shifts: an add, remove, move or copy at a list index, which the library applies by
	// moving the whole list.
	shifts bool
	// longList: its value holds a list longer than MaxShiftedList.
	longList bool
}

func readOps(jp jsonpatch.Patch) []opInfo {
	out := make([]opInfo, len(jp))

	for i, op := range jp {
		parent, ins, ok := listAdd(op)
		out[i] = opInfo{listAdd: ok, parent: parent, ins: ins, paths: opPaths(op), copies: op.Kind() == "copy", shifts: shifts(op), longList: longValue(op)}

		if !ok {
			out[i].parent, out[i].ins, out[i].item = itemOp(op)
		}
	}

	return out
}

// shifts reports whether the library applies op by moving a list: an add, remove, move or
// copy whose path (or, for a move, from) ends in a number. Unknown paths count.
func shifts(op jsonpatch.Operation) bool {
	kind := op.Kind()
	if kind != "add" && kind != "remove" && kind != "move" && kind != "copy" {
		return false
	}

	numeric := func(path string, err error) bool {
		if err != nil {
			return true
		}

		_, convErr := strconv.Atoi(path[strings.LastIndexByte(path, '/')+1:])

		return convErr == nil
	}

	if kind == "move" && numeric(op.From()) {
		return true
	}

	return numeric(op.Path())
}

// longValue reports whether op's value holds a list longer than MaxShiftedList.
func longValue(op jsonpatch.Operation) bool {
	v, ok := op["value"]

	return ok && v != nil && len(*v) > 2*MaxShiftedList && longestList(*v) > MaxShiftedList
}

// longestList is how many items the longest list of a JSON document holds (0 for a
// malformed one, which the library refuses on its own).
func longestList(doc []byte) int {
	const object, empty = -2, -1

	// open holds, for each open list, its commas (empty: no item yet); for an object, object.
	var (
		open              []int
		longest           int
		inString, escaped bool
	)

	for _, c := range doc {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}

			continue
		}

		top := len(open) - 1

		switch c {
		case ' ', '\t', '\r', '\n', ':':
			continue
		case ',':
			if top >= 0 && open[top] >= 0 {
				open[top]++
			}

			continue
		case ']', '}':
			if top < 0 {
				return 0
			}

			if open[top] != object {
				longest = max(longest, open[top]+1)
			}

			open = open[:top]

			continue
		}

		// A value starts: the list it is in has an item.
		if top >= 0 && open[top] == empty {
			open[top] = 0
		}

		switch c {
		case '"':
			inString = true
		case '[':
			open = append(open, empty)
		case '{':
			open = append(open, object)
		}
	}

	return longest
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
		case (o.listAdd || o.item) && o.parent == ops[i].parent:
			adds = append(adds, end)
		case !o.apart(parent):
			return end, adds
		}
	}

	return end, adds
}

// spanFinder tells which operations start a span worth applying here.
type spanFinder struct {
	ops []opInfo
	// limit is the size the document may grow to (MaxPatchGrowth).
	limit int
	// noRun is, for a list's path, the operation before which no add into it starts a run:
	// the adds after one that was found not to are fewer still, up to the same operation
	// that ends them.
	noRun map[string]int
}

func newSpanFinder(ops []opInfo, limit int) *spanFinder {
	return &spanFinder{ops: ops, limit: limit, noRun: map[string]int{}}
}

// startsRun reports whether ops[i] is an add into a list that starts minInsertRun adds
// into it before an operation touches the list otherwise, within opsPerCheck operations:
// adds sparser than that cost the library little beside its pass over the document.
func (f *spanFinder) startsRun(i int) bool {
	op := f.ops[i]
	if !op.listAdd || i < f.noRun[op.parent] {
		return false
	}

	parent := segments(op.parent)
	adds := 0

	for j := i; j < len(f.ops) && j-i < opsPerCheck; j++ {
		switch o := f.ops[j]; {
		case o.listAdd && o.parent == op.parent:
			if adds++; adds >= minInsertRun {
				return true
			}
		case o.item && o.parent == op.parent:
			// An operation on the list's items: the span applies it in its place.
		case !o.apart(parent):
			f.noRun[op.parent] = j

			return false
		}

		if j == len(f.ops)-1 {
			f.noRun[op.parent] = len(f.ops)
		}
	}

	return false
}

// applySpan applies jp[start:end], whose adds into the list at parent are at adds, with
// the inserts placed here, or says it cannot (ok false). The other operations apply first,
// as a patch of their own one level down; only a cancellation is an error.
func applySpan(ctx context.Context, doc []byte, jp jsonpatch.Patch, sf *spanFinder, start, end int, adds []int, depth int) ([]byte, bool, error) {
	ops := sf.ops
	others := make(jsonpatch.Patch, 0, end-start-len(adds))
	otherOps := make([]opInfo, 0, cap(others))
	run := make([]insertOp, 0, len(adds))

	next := 0

	for i := start; i < end; i++ {
		if next < len(adds) && adds[next] == i {
			run = append(run, ops[i].ins)
			next++

			continue
		}

		others = append(others, jp[i])
		otherOps = append(otherOps, ops[i])
	}

	if len(others) > 0 {
		var err error
		if doc, err = applyJSONAt(ctx, doc, others, newSpanFinder(otherOps, sf.limit), depth+1); err != nil {
			if errors.Is(err, errPatchedTooLarge) {
				return nil, false, err
			}

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

	parent, key, ok := listPosition(op, true)
	if !ok {
		return "", insertOp{}, false
	}

	v, ok := op["value"]
	if !ok || v == nil {
		return "", insertOp{}, false
	}

	return parent, insertOp{key: key, value: *v}, true
}

// listPosition splits an operation's path into its parent and its last element, a list
// index the library reads as one (strconv.Atoi), or "-" when end is allowed.
func listPosition(op jsonpatch.Operation, end bool) (parent, key string, ok bool) {
	path, err := op.Path()
	if err != nil {
		return "", "", false
	}

	cut := strings.LastIndexByte(path, '/')
	if cut <= 0 {
		return "", "", false
	}

	key = path[cut+1:]
	if _, err := strconv.Atoi(key); err != nil && (!end || key != "-") {
		return "", "", false
	}

	return path[:cut], key, true
}

// itemOp reads a replace, remove or test of the item of a list at an index (a number the
// library reads as one), with a value where it takes one.
func itemOp(op jsonpatch.Operation) (string, insertOp, bool) {
	kind := op.Kind()
	if kind != "replace" && kind != "remove" && kind != "test" {
		return "", insertOp{}, false
	}

	parent, key, ok := listPosition(op, false)
	if !ok {
		return "", insertOp{}, false
	}

	ins := insertOp{key: key, kind: kind}

	if kind != "remove" {
		v, ok := op["value"]
		if !ok || v == nil || string(*v) == "null" {
			return "", insertOp{}, false
		}

		ins.value = *v
	}

	return parent, ins, true
}

// applyInserts applies a run of adds into the list at parent, and of operations on its
// items among them, or says it cannot (ok false) and leaves the run to the library.
func applyInserts(doc []byte, parent string, run []insertOp) ([]byte, bool) {
	list, ok := listAt(doc, parent)
	if !ok {
		return nil, false
	}

	var merged []json.RawMessage

	if slices.ContainsFunc(run, func(op insertOp) bool { return op.kind != "" }) {
		if merged, ok = applyListOps(list, run); !ok {
			return nil, false
		}
	} else {
		slots, ok := placeInserts(len(list), run)
		if !ok {
			return nil, false
		}

		merged = make([]json.RawMessage, len(list)+len(run))
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

// blockSize is how many items a block of a blockList holds at most.
const blockSize = 512

// blockList is a list in blocks, so that an insert or a remove at an index moves one block,
// and finding the index walks the blocks: O(√n) each where the library moves the whole list.
type blockList struct {
	blocks [][]json.RawMessage
	n      int
}

func newBlockList(items []json.RawMessage) *blockList {
	l := &blockList{n: len(items)}

	for len(items) > 0 {
		k := min(len(items), blockSize/2)
		l.blocks = append(l.blocks, slices.Clone(items[:k]))
		items = items[k:]
	}

	return l
}

// at is the block and the offset in it of index i (i == n: past the last block's end).
func (l *blockList) at(i int) (int, int) {
	for b, blk := range l.blocks {
		if i < len(blk) {
			return b, i
		}

		i -= len(blk)
	}

	if len(l.blocks) == 0 {
		l.blocks = append(l.blocks, nil)
	}

	last := len(l.blocks) - 1

	return last, len(l.blocks[last])
}

func (l *blockList) insert(i int, v json.RawMessage) {
	b, off := l.at(i)
	l.blocks[b] = slices.Insert(l.blocks[b], off, v)
	l.n++

	if blk := l.blocks[b]; len(blk) > blockSize {
		half := len(blk) / 2
		l.blocks = slices.Insert(l.blocks, b+1, slices.Clone(blk[half:]))
		l.blocks[b] = blk[:half:half]
	}
}

func (l *blockList) remove(i int) {
	b, off := l.at(i)
	l.blocks[b] = slices.Delete(l.blocks[b], off, off+1)
	l.n--

	if len(l.blocks[b]) == 0 {
		l.blocks = slices.Delete(l.blocks, b, b+1)
	}
}

func (l *blockList) get(i int) *json.RawMessage {
	b, off := l.at(i)

	return &l.blocks[b][off]
}

func (l *blockList) items() []json.RawMessage {
	out := make([]json.RawMessage, 0, l.n)
	for _, blk := range l.blocks {
		out = append(out, blk...)
	}

	return out
}

// applyListOps applies a run of adds and operations on items to list, one after the
// other, as the library reads their indexes, or says it cannot (ok false: one fails, or
// is not sure to do what the library does), and the library applies the run itself.
func applyListOps(list []json.RawMessage, run []insertOp) ([]json.RawMessage, bool) {
	l := newBlockList(list)

	for _, op := range run {
		if op.kind == "" && op.key == "-" {
			l.insert(l.n, op.value)

			continue
		}

		idx, err := strconv.Atoi(op.key)
		if err != nil {
			return nil, false
		}

		size := l.n
		if op.kind == "" {
			size++ // an add may land past the last item
		}

		if idx < 0 {
			if !jsonpatch.SupportNegativeIndices || idx < -size {
				return nil, false
			}

			idx += size
		}

		if idx >= size {
			return nil, false
		}

		switch op.kind {
		case "":
			l.insert(idx, op.value)
		case "remove":
			l.remove(idx)
		case "replace":
			*l.get(idx) = op.value
		case "test":
			// The library's own comparison; a null item it reads otherwise.
			if item := *l.get(idx); string(item) == "null" || !jsonpatch.Equal(item, op.value) {
				return nil, false
			}
		}
	}

	return l.items(), true
}
