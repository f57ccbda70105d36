package render

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	jsonpatch "github.com/evanphx/json-patch"
	"github.com/siderolabs/talos/pkg/machinery/config/configpatcher"
)

// countdown is a context that ends after its Err was asked left times: where a render
// looks at it is then exact, without timing.
type countdown struct {
	context.Context
	asked, left atomic.Int32
}

func (c *countdown) Err() error {
	c.asked.Add(1)

	if c.left.Add(-1) < 0 {
		return context.Canceled
	}

	return nil
}

// The red team's SIGTERM case: 40,000 inserts at the head of a list, applied whole, were
// still running minutes after the job was cancelled. The context is asked between batches
// of operations: cancelled after the first batch, the patch stops at the second look.
func TestJSON6902_ACancelledContextStopsTheOperationsWithinABatch(t *testing.T) {
	var b strings.Builder

	b.WriteString(`[{"op": "add", "path": "/machine/certSANs", "value": []}`)

	for i := range 40000 - 1 {
		fmt.Fprintf(&b, `, {"op": "add", "path": "/machine/certSANs/0", "value": "san%d.example"}`, i)
	}

	b.WriteString("]")

	jp, err := jsonpatch.DecodePatch([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}

	ctx := &countdown{Context: context.Background()}
	ctx.left.Store(1)

	start := time.Now()
	_, err = json6902(ctx, []byte("machine:\n  type: worker\n"), jp)

	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want the cancellation", err)
	}

	if n := ctx.asked.Load(); n != 2 {
		t.Errorf("the context was asked %d times, want 2: once before each batch, stopping at the second", n)
	}

	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %s to stop", took)
	}
}

func TestJSON6902_BatchesApplyAsTheWholePatch(t *testing.T) {
	var b strings.Builder

	b.WriteString(`[{"op": "add", "path": "/machine/certSANs", "value": []}`)

	for i := range 3*opsPerCheck + 7 {
		fmt.Fprintf(&b, `, {"op": "add", "path": "/machine/certSANs/0", "value": "san%d"}`, i)
	}

	b.WriteString(`, {"op": "remove", "path": "/machine/certSANs/1"}]`)

	jp, err := jsonpatch.DecodePatch([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}

	doc := []byte("machine:\n  type: worker\n")

	got, err := json6902(context.Background(), doc, jp)
	if err != nil {
		t.Fatal(err)
	}

	want, err := jsonpatchWhole(doc, jp)
	if err != nil {
		t.Fatal(err)
	}

	if string(got) != string(want) {
		t.Errorf("batched:\n%.300s\nwhole:\n%.300s", got, want)
	}
}

// jsonpatchWhole is machinery's application of the whole patch at once.
func jsonpatchWhole(doc []byte, jp jsonpatch.Patch) ([]byte, error) {
	return configpatcher.JSON6902(doc, jp)
}

// An insert, then an operation on the list's items, and again: no run of inserts formed,
// each operation was a batch of its own, a pass over the whole document that the inserts
// grow (10,000 such operations took 12s, 5m with a 3 MiB value beside the list), and the
// library moved the whole list for each insert. The inserts and the operations on the
// list's items apply in one pass: one look at the context for the list's add, one for them.
func TestJSON6902_InsertsBetweenOperationsOnTheListsItemsApplyInOnePass(t *testing.T) {
	const pairs = 2000

	var b strings.Builder

	b.WriteString(`[{"op": "add", "path": "/machine/certSANs", "value": []}`)

	for i := range pairs {
		fmt.Fprintf(&b, `, {"op": "add", "path": "/machine/certSANs/0", "value": "san%d"}`, i)
		fmt.Fprintf(&b, `, {"op": "replace", "path": "/machine/certSANs/0", "value": "r%d"}`, i)
	}

	b.WriteString("]")

	jp, err := jsonpatch.DecodePatch([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}

	doc := []byte("machine:\n  type: worker\n")

	ctx := &countdown{Context: context.Background()}
	ctx.left.Store(int32(len(jp)))

	got, err := json6902(ctx, doc, jp)
	if err != nil {
		t.Fatal(err)
	}

	if n := ctx.asked.Load(); n != 2 {
		t.Errorf("the context was asked %d times, want 2: once before the list's add, once before the span of the rest", n)
	}

	want, err := jsonpatchWhole(doc, jp)
	if err != nil {
		t.Fatal(err)
	}

	if string(got) != string(want) {
		t.Errorf("batched:\n%.300s\nwhole:\n%.300s", got, want)
	}
}
