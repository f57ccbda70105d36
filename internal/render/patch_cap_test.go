package render_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/talops/talops/internal/render"
)

// inserts is an RFC 6902 patch that makes a list, then inserts n values at its head: each
// insert moves the whole list.
func inserts(n int) string {
	var b strings.Builder

	b.WriteString("- op: add\n  path: /machine/certSANs\n  value: []\n")

	for i := range n - 1 {
		fmt.Fprintf(&b, "- op: add\n  path: /machine/certSANs/0\n  value: san%d.example\n", i)
	}

	return b.String()
}

func TestRender_APatchOfTooManyOperationsIsRefusedAtTheFirstOnePastTheCap(t *testing.T) {
	got := patchErrors(t, inserts(render.MaxPatchOps+1))
	want := fmt.Sprintf("examples/homelab/patches/worker.yaml:%d: an RFC 6902 patch holds %d operations, more than the %d talops applies from one file (the first one past them is here): split it, or set the values with a strategic merge patch",
		3*render.MaxPatchOps+1, render.MaxPatchOps+1, render.MaxPatchOps)

	if strings.Join(got, "\n") != want {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}
