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

// copies is an RFC 6902 patch that makes a list, then copies it into itself n times: each
// copy doubles the document.
func copies(n int) string {
	var b strings.Builder

	b.WriteString("- op: add\n  path: /machine/certSANs\n  value: [" + strings.Repeat("a", 64) + "]\n")

	for range n {
		b.WriteString("- op: copy\n  from: /machine/certSANs\n  path: /machine/certSANs/-\n")
	}

	return b.String()
}

// 30 copies of a list into itself, a patch of 2 KB, would make a config of 64 GB: the
// render stops at the copy that takes it past the bound.
func TestRender_CopiesThatDoubleTheConfigStopAtTheBound(t *testing.T) {
	got := patchErrors(t, copies(30))
	want := []string{fmt.Sprintf("examples/homelab/patches/worker.yaml:54: machine.certSANs: RFC 6902 patch: the patch grows the machine config by more than %d bytes: copy less, or set the values themselves", render.MaxPatchGrowth)}

	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// longList is an RFC 6902 patch that makes a list of n items, then does op to it.
func longList(n int, op string) string {
	return "- op: add\n  path: /machine/certSANs\n  value: [" + strings.TrimSuffix(strings.Repeat("0, ", n), ", ") + "]\n" + op
}

// The library moves a whole list to insert into it by index: beside a list of 200,000
// items, 5,000 inserts each followed by a replace took 14s. A patch that moves a list while
// the config holds one longer than the bound stops at that operation.
func TestRender_AnInsertByIndexBesideAListPastTheBoundIsRefusedAtIt(t *testing.T) {
	got := patchErrors(t, longList(render.MaxShiftedList+1, "- op: add\n  path: /machine/certSANs/0\n  value: x\n- op: replace\n  path: /machine/certSANs/0\n  value: y\n"))
	want := fmt.Sprintf("examples/homelab/patches/worker.yaml:5: machine.certSANs[0]: RFC 6902 patch: the patch inserts into or removes from a list while the config holds one of %d items, more than the %d talops moves by index: set long lists with a strategic merge patch",
		render.MaxShiftedList+1, render.MaxShiftedList)

	if strings.Join(got, "\n") != want {
		t.Errorf("errors:\n%.500s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}

func TestRender_AListAtTheBoundTakesInsertsByIndex(t *testing.T) {
	if got := patchErrors(t, longList(render.MaxShiftedList, "- op: add\n  path: /machine/certSANs/0\n  value: x\n- op: add\n  path: /machine/certSANs/-\n  value: y\n")); len(got) != 0 {
		t.Errorf("errors:\n%.500s", strings.Join(got, "\n"))
	}
}
