package render

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	jsonpatch "github.com/evanphx/json-patch"
)

// insertsPatch is an RFC 6902 patch: a list of m items at /machine/certSANs, then an add
// at each key, in order.
func insertsPatch(tb testing.TB, m int, keys []string) jsonpatch.Patch {
	tb.Helper()

	var b strings.Builder

	b.WriteString(`[{"op": "add", "path": "/machine/certSANs", "value": [`)

	for i := range m {
		if i > 0 {
			b.WriteString(", ")
		}

		fmt.Fprintf(&b, `"old%d"`, i)
	}

	b.WriteString("]}")

	for i, k := range keys {
		fmt.Fprintf(&b, `, {"op": "add", "path": "/machine/certSANs/%s", "value": {"n": %d, "s": "new%d"}}`, k, i, i)
	}

	b.WriteString("]")

	jp, err := jsonpatch.DecodePatch([]byte(b.String()))
	if err != nil {
		tb.Fatal(err)
	}

	return jp
}

const insertsDoc = `{"machine": {"type": "worker", "sysctls": {"a": "1"}, "other": ["o"]}}`

// keysOf makes n keys by f(i, the list's length then).
func keysOf(n, m int, f func(i, size int) string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = f(i, m+i)
	}

	return out
}

func TestApplyJSON_RunsOfInsertsGiveWhatTheLibraryGives(t *testing.T) {
	t.Parallel()

	const n = 3 * minInsertRun

	tests := []struct {
		name string
		m    int
		keys []string
		// fails: the library refuses the patch (an index out of range), and so must we.
		fails bool
	}{
		{name: "all at the head", m: 5, keys: keysOf(n, 5, func(int, int) string { return "0" })},
		{name: "all at the end", m: 5, keys: keysOf(n, 5, func(int, int) string { return "-" })},
		{name: "all at the end by index", m: 5, keys: keysOf(n, 5, func(_, size int) string { return fmt.Sprint(size) })},
		{name: "one after the other", m: 5, keys: keysOf(n, 5, func(i, _ int) string { return fmt.Sprint(2 + i) })},
		{name: "negative indexes", m: 5, keys: keysOf(n, 5, func(i, size int) string { return fmt.Sprint(-1 - i%(size+1)) })},
		{name: "scattered", m: 7, keys: keysOf(n, 7, func(i, size int) string { return fmt.Sprint((i*7919 + 13) % (size + 1)) })},
		{name: "into an empty list", m: 0, keys: keysOf(n, 0, func(i, size int) string { return fmt.Sprint(i % (size + 1)) })},
		{name: "an index past the end", m: 5, keys: append(keysOf(n, 5, func(int, int) string { return "0" }), "9999"), fails: true},
		{name: "a negative index before the head", m: 5, keys: append(keysOf(n, 5, func(int, int) string { return "0" }), "-9999"), fails: true},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			jp := insertsPatch(t, tt.m, tt.keys)

			want, wantErr := jp.Apply([]byte(insertsDoc))
			got, err := applyJSON(context.Background(), []byte(insertsDoc), jp)

			if (wantErr != nil) != tt.fails || (err != nil) != tt.fails {
				t.Fatalf("errors: library %v, applyJSON %v, want failing %v", wantErr, err, tt.fails)
			}

			if string(got) != string(want) {
				t.Errorf("applyJSON:\n%.400s\nlibrary:\n%.400s", got, want)
			}
		})
	}
}

// Operations that touch neither the list nor a path above it (another key, another list)
// stay in the inserts' span; one on the list's items ends it. Both as the library.
func TestApplyJSON_InsertsAmongOtherOperationsGiveWhatTheLibraryGives(t *testing.T) {
	t.Parallel()

	for _, between := range []string{
		`{"op": "replace", "path": "/machine/type", "value": "t%d"}`,
		`{"op": "add", "path": "/machine/other/0", "value": "o%d"}`,
		`{"op": "add", "path": "/machine/sysctls/k%d", "value": "v"}`,
		`{"op": "copy", "from": "/machine/type", "path": "/machine/sysctls/c%d"}`,
		`{"op": "replace", "path": "/machine/certSANs/0", "value": "r%d"}`,
		`{"op": "remove", "path": "/machine/certSANs/0", "x": "%d"}`,
		`{"op": "test", "path": "/machine/certSANs/0", "value": {"n": %d}}`,
	} {
		var b strings.Builder

		b.WriteString(`[{"op": "add", "path": "/machine/certSANs", "value": ["a", "b"]}`)

		for i := range 4 * minInsertRun {
			fmt.Fprintf(&b, `, {"op": "add", "path": "/machine/certSANs/%d", "value": {"n": %d}}`, i%3, i)

			if i%5 == 4 {
				fmt.Fprintf(&b, ", "+between, i)
			}
		}

		b.WriteString("]")

		jp, err := jsonpatch.DecodePatch([]byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}

		want, wantErr := jp.Apply([]byte(insertsDoc))
		got, err := applyJSON(context.Background(), []byte(insertsDoc), jp)

		if (wantErr == nil) != (err == nil) || string(got) != string(want) {
			t.Errorf("%s: applyJSON %.300q, %v\nlibrary %.300q, %v", between, got, err, want, wantErr)
		}
	}
}

// Inserts into several lists, taking turns: each list's are placed in linear time, down to
// maxSpanDepth lists, the rest by the library; all as the library alone.
func TestApplyJSON_InsertsIntoListsTakingTurnsGiveWhatTheLibraryGives(t *testing.T) {
	t.Parallel()

	lists := []string{"certSANs", "other", "third", "fourth", "fifth"}

	var b strings.Builder

	b.WriteString(`[{"op": "add", "path": "/machine/certSANs", "value": []}, {"op": "add", "path": "/machine/third", "value": ["t"]}, {"op": "add", "path": "/machine/fourth", "value": []}, {"op": "add", "path": "/machine/fifth", "value": []}`)

	for i := range 2 * minInsertRun {
		for j, l := range lists {
			fmt.Fprintf(&b, `, {"op": "add", "path": "/machine/%s/%d", "value": "%s%d"}`, l, (i*(j+1))%(i+1), l, i)
		}
	}

	b.WriteString("]")

	jp, err := jsonpatch.DecodePatch([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}

	want, wantErr := jp.Apply([]byte(insertsDoc))
	got, err := applyJSON(context.Background(), []byte(insertsDoc), jp)

	if wantErr != nil || err != nil || string(got) != string(want) {
		t.Errorf("applyJSON %.300q, %v\nlibrary %.300q, %v", got, err, want, wantErr)
	}
}

// A run into an object (numeric keys of a map) or a path that is no list is left to the
// library whole.
func TestApplyJSON_RunsIntoWhatIsNoListAreTheLibrarys(t *testing.T) {
	t.Parallel()

	for _, path := range []string{"/machine/sysctls", "/machine/type", "/machine/nope"} {
		var b strings.Builder

		b.WriteString("[")

		for i := range 2 * minInsertRun {
			if i > 0 {
				b.WriteString(", ")
			}

			fmt.Fprintf(&b, `{"op": "add", "path": "%s/%d", "value": "v%d"}`, path, i, i)
		}

		b.WriteString("]")

		jp, err := jsonpatch.DecodePatch([]byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}

		want, wantErr := jp.Apply([]byte(insertsDoc))
		got, err := applyJSON(context.Background(), []byte(insertsDoc), jp)

		if (wantErr == nil) != (err == nil) || string(got) != string(want) {
			t.Errorf("%s: applyJSON %q, %v; library %q, %v", path, got, err, want, wantErr)
		}
	}
}

func TestPlaceInserts_EachAddLandsWhereInsertingOneByOneWouldPutIt(t *testing.T) {
	t.Parallel()

	const m = 4

	run := make([]insertOp, 0, 50)
	for i := range 50 {
		run = append(run, insertOp{key: fmt.Sprint((i * 31) % (m + i + 1))})
	}

	slots, ok := placeInserts(m, run)
	if !ok {
		t.Fatal("refused")
	}

	// One by one, as the library does.
	list := []int{-1, -1, -1, -1}
	for j, op := range run {
		var idx int
		fmt.Sscan(op.key, &idx) //nolint:errcheck // keys made above

		list = append(list[:idx], append([]int{j}, list[idx:]...)...)
	}

	for at, j := range list {
		if j >= 0 && slots[j] != at {
			t.Errorf("add %d at slot %d, one by one at %d", j, slots[j], at)
		}
	}
}

// FuzzApplyJSON_AsTheLibrary applies runs of adds at indexes drawn from the input, with
// other operations between them, and wants the library's document, or an error where it
// fails.
func FuzzApplyJSON_AsTheLibrary(f *testing.F) {
	f.Add([]byte{0}, uint8(3))
	f.Add([]byte{0, 1, 2, 3, 255, 7}, uint8(0))
	f.Add([]byte{200, 100, 50, 25, 12, 6, 3, 1}, uint8(9))
	f.Add([]byte("-1-2-3"), uint8(1))
	f.Add([]byte{0, 255, 1, 255, 2}, uint8(2))
	f.Add([]byte{0, 0, 0, 254, 3, 253}, uint8(1))
	f.Add([]byte{0, 252, 1, 254, 252, 2, 253, 0}, uint8(4))

	f.Fuzz(func(t *testing.T, data []byte, m uint8) {
		if len(data) == 0 || len(data) > 64 {
			return
		}

		keys := make([]string, 0, 4*minInsertRun)
		size := int(m)

		for i := range cap(keys) {
			b := int(data[i%len(data)])

			switch {
			case b == 255:
				keys = append(keys, "+apart")
			case b == 254:
				keys = append(keys, "+inside")
			case b == 253:
				keys = append(keys, "+above")
			case b == 252:
				keys = append(keys, "+remove")
			case b%11 == 0:
				keys = append(keys, "-")
			case b%5 == 0:
				keys = append(keys, fmt.Sprint(-(b%(size+3) + 1)))
			default:
				keys = append(keys, fmt.Sprint(b%(size+2)))
			}

			size++
		}

		var b strings.Builder

		fmt.Fprintf(&b, `[{"op": "add", "path": "/machine/certSANs", "value": [%s]}`, strings.TrimSuffix(strings.Repeat(`"x", `, int(m)), ", "))

		for i, k := range keys {
			switch k {
			case "+apart":
				// Operations on other paths, and inserts into another list, stay in the span.
				fmt.Fprintf(&b, `, {"op": "replace", "path": "/machine/type", "value": "t%d"}`, i)
				fmt.Fprintf(&b, `, {"op": "add", "path": "/machine/other/0", "value": "o%d"}`, i)

				continue
			case "+inside":
				// One on the list's items ends it (and fails on an empty list, as the library does).
				fmt.Fprintf(&b, `, {"op": "replace", "path": "/machine/certSANs/0", "value": "r%d"}`, i)

				continue
			case "+above":
				fmt.Fprintf(&b, `, {"op": "test", "path": "/machine/certSANs/0", "value": "x"}`)

				continue
			case "+remove":
				fmt.Fprintf(&b, `, {"op": "remove", "path": "/machine/certSANs/%d"}`, -(i%3)-1+i%2*(i%5))

				continue
			}

			fmt.Fprintf(&b, `, {"op": "add", "path": "/machine/certSANs/%s", "value": %d}`, k, i)
		}

		b.WriteString("]")

		jp, err := jsonpatch.DecodePatch([]byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}

		want, wantErr := jp.Apply([]byte(insertsDoc))
		got, err := applyJSON(context.Background(), []byte(insertsDoc), jp)

		if (wantErr == nil) != (err == nil) || string(got) != string(want) {
			t.Fatalf("applyJSON %.300q, %v\nlibrary %.300q, %v", got, err, want, wantErr)
		}
	})
}

// BenchmarkJSON6902_InsertsAtAListsHeadScaleLinearly is the red team's patch (every insert
// at index 0 of one list) at n and 8n operations. It reports how many times longer 8n
// takes: about 8 for a linear cost, 64 for the square the library alone pays (shown beside
// it for the same patches).
func BenchmarkJSON6902_InsertsAtAListsHeadScaleLinearly(b *testing.B) {
	const n = 1000

	patches := map[int]jsonpatch.Patch{}
	for _, size := range []int{n, 8 * n} {
		patches[size] = insertsPatch(b, 0, keysOf(size, 0, func(int, int) string { return "0" }))
	}

	doc := []byte(insertsDoc)

	timed := func(apply func(jsonpatch.Patch) error, size int) time.Duration {
		start := time.Now()
		if err := apply(patches[size]); err != nil {
			b.Fatal(err)
		}

		return time.Since(start)
	}
	ours := func(jp jsonpatch.Patch) error {
		_, err := applyJSON(context.Background(), doc, jp)

		return err
	}
	library := func(jp jsonpatch.Patch) error {
		_, err := jp.Apply(doc)

		return err
	}

	var small, large, libSmall, libLarge time.Duration

	for b.Loop() {
		small += timed(ours, n)
		large += timed(ours, 8*n)
		libSmall += timed(library, n)
		libLarge += timed(library, 8*n)
	}

	b.ReportMetric(float64(large)/float64(small), "x-talops-8n/n")
	b.ReportMetric(float64(libLarge)/float64(libSmall), "x-library-8n/n")
	b.ReportMetric(float64(large.Microseconds())/float64(b.N), "µs-talops-8n")
	b.ReportMetric(float64(libLarge.Microseconds())/float64(b.N), "µs-library-8n")
}

// BenchmarkJSON6902_InsertsAmongOtherOperationsScaleLinearly: every insert at index 0 of one
// list is followed by an operation elsewhere (another key, another list), at n and 8n
// inserts; it reports how many times longer 8n takes (about 8 when linear).
func BenchmarkJSON6902_InsertsAmongOtherOperationsScaleLinearly(b *testing.B) {
	const n = 1000

	patch := func(size int) jsonpatch.Patch {
		var sb strings.Builder

		sb.WriteString(`[{"op": "add", "path": "/machine/certSANs", "value": []}`)

		for i := range size {
			fmt.Fprintf(&sb, `, {"op": "add", "path": "/machine/certSANs/0", "value": "san%d"}`, i)
			fmt.Fprintf(&sb, `, {"op": "replace", "path": "/machine/type", "value": "t%d"}`, i)
		}

		sb.WriteString("]")

		jp, err := jsonpatch.DecodePatch([]byte(sb.String()))
		if err != nil {
			b.Fatal(err)
		}

		return jp
	}

	small, large := patch(n), patch(8*n)
	doc := []byte(insertsDoc)

	var tSmall, tLarge time.Duration

	for b.Loop() {
		start := time.Now()
		if _, err := applyJSON(context.Background(), doc, small); err != nil {
			b.Fatal(err)
		}

		tSmall += time.Since(start)

		start = time.Now()
		if _, err := applyJSON(context.Background(), doc, large); err != nil {
			b.Fatal(err)
		}

		tLarge += time.Since(start)
	}

	b.ReportMetric(float64(tLarge)/float64(tSmall), "x-talops-8n/n")
	b.ReportMetric(float64(tLarge.Microseconds())/float64(b.N), "µs-talops-8n")
}

// BenchmarkJSON6902_InsertsBetweenOperationsOnTheList: every insert at index 0 of one list
// is followed by a replace of the item it put there, at 10,000 and 40,000 operations; it
// reports how many times longer 40,000 take (4 when linear; the library, which moves the
// whole list for each insert, took 13).
func BenchmarkJSON6902_InsertsBetweenOperationsOnTheList(b *testing.B) {
	patch := func(ops int) jsonpatch.Patch {
		var sb strings.Builder

		sb.WriteString(`[{"op": "add", "path": "/machine/certSANs", "value": []}`)

		for i := range ops / 2 {
			fmt.Fprintf(&sb, `, {"op": "add", "path": "/machine/certSANs/0", "value": "san%d"}`, i)
			fmt.Fprintf(&sb, `, {"op": "replace", "path": "/machine/certSANs/0", "value": "r%d"}`, i)
		}

		sb.WriteString("]")

		jp, err := jsonpatch.DecodePatch([]byte(sb.String()))
		if err != nil {
			b.Fatal(err)
		}

		return jp
	}

	small, large := patch(10000), patch(40000)
	doc := []byte(insertsDoc)

	var tSmall, tLarge time.Duration

	for b.Loop() {
		start := time.Now()
		if _, err := applyJSON(context.Background(), doc, small); err != nil {
			b.Fatal(err)
		}

		tSmall += time.Since(start)

		start = time.Now()
		if _, err := applyJSON(context.Background(), doc, large); err != nil {
			b.Fatal(err)
		}

		tLarge += time.Since(start)
	}

	b.ReportMetric(float64(tLarge)/float64(tSmall), "x-talops-40k/10k")
	b.ReportMetric(float64(tLarge.Microseconds())/float64(b.N), "µs-talops-40k")
}

func TestLongestList_CountsTheItemsOfTheLongestListAtAnyDepth(t *testing.T) {
	t.Parallel()

	for doc, want := range map[string]int{
		`[]`:        0,
		`[1]`:       1,
		`[1, 2, 3]`: 3,
		`{"a": [1, [2, 3, 4, 5], "x,y,z"], "b": {"c": []}}`: 4,
		`{"a": "[,,,,]"}`:    0,
		`[[], [], []]`:       3,
		`["a\"],[", 1]`:      2,
		`[{"a": 1, "b": 2}]`: 1,
		`]`:                  0,
	} {
		if got := longestList([]byte(doc)); got != want {
			t.Errorf("longestList(%s) = %d, want %d", doc, got, want)
		}
	}
}

// A long run of adds, replaces and removes across many blocks gives what the same
// operations give one by one on a plain list.
func TestApplyListOps_GivesWhatAPlainListGives(t *testing.T) {
	t.Parallel()

	list := make([]json.RawMessage, 3000)
	for i := range list {
		list[i] = json.RawMessage(fmt.Sprint(i))
	}

	want := slices.Clone(list)
	run := make([]insertOp, 0, 20000)
	seed := uint32(1)

	next := func(n int) int {
		seed = seed*1664525 + 1013904223

		return int(seed>>8) % n
	}

	for i := range cap(run) {
		v := json.RawMessage(fmt.Sprintf(`"v%d"`, i))

		switch r := next(10); {
		case r < 5 || len(want) == 0:
			at := next(len(want) + 1)
			run = append(run, insertOp{key: fmt.Sprint(at), value: v})
			want = slices.Insert(want, at, v)
		case r < 7:
			at := next(len(want))
			run = append(run, insertOp{key: fmt.Sprint(at - len(want)), kind: "replace", value: v})
			want[at] = v
		default:
			at := next(len(want))
			run = append(run, insertOp{key: fmt.Sprint(at), kind: "remove"})
			want = slices.Delete(want, at, at+1)
		}
	}

	got, ok := applyListOps(list, run)
	if !ok {
		t.Fatal("the run was refused")
	}

	if !slices.EqualFunc(got, want, func(a, b json.RawMessage) bool { return string(a) == string(b) }) {
		t.Errorf("got %d items, want %d, or another order", len(got), len(want))
	}
}
