package render_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/talops/talops/internal/testlab"
)

// manyOps is an RFC 6902 patch of n operations, three lines each, whose operation bad
// (counted from 0) replaces a path that does not exist.
func manyOps(n, bad int) string {
	var b strings.Builder

	for i := range n {
		if i == bad {
			b.WriteString("- op: replace\n  path: /machine/nope/x\n  value: 1\n")

			continue
		}

		fmt.Fprintf(&b, "- op: add\n  path: /machine/sysctls/label%d\n  value: \"%d\"\n", i, i)
	}

	return b.String()
}

func TestRender_BadOperationAmongThousandsPointsAtItsLine(t *testing.T) {
	const n, bad = 8000, 7990

	got := patchErrors(t, manyOps(n, bad))
	want := fmt.Sprintf("examples/homelab/patches/worker.yaml:%d: machine.nope.x: RFC 6902 patch: replace operation does not apply: doc is missing path: /machine/nope/x: missing value", 3*bad+2)

	if strings.Join(got, "\n") != want {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}

// BenchmarkRender_PatchOf8000OperationsWithOneBad is issue 11's case: placing the bad
// operation must not re-apply the patch once per operation.
func BenchmarkRender_PatchOf8000OperationsWithOneBad(b *testing.B) {
	for _, n := range []int{1000, 8000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			files := testlab.Files(b)
			files["patches/worker.yaml"] = []byte(manyOps(n, n-10))

			for b.Loop() {
				if node2Err(b, renderLab(b, files)) == nil {
					b.Fatal("the bad operation was applied")
				}
			}
		})
	}
}
