package cli_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/testlab"
)

func benchValidate(b *testing.B, nodes int) {
	files := testlab.Scaled(b, nodes)
	h := newHarness(&testing.T{}, files, nil)
	h.deps.Stdout, h.deps.Stderr = io.Discard, io.Discard

	opts := &cli.ValidateOptions{Deps: h.deps, Format: "text", ValidateOptions: app.ValidateOptions{Dir: "examples/homelab"}}

	res, err := cli.Validate(context.Background(), opts)
	if err != nil {
		b.Fatal(err)
	}

	// Notes are allowed: the lab's Talos release may be newer than the embedded extension
	// data (versions.release-data), which changes nothing of the work measured.
	if errs, warnings, _ := finding.Count(res.Findings); errs+warnings != 0 || res.Nodes != nodes {
		b.Fatalf("the scaled lab is not clean: %d nodes, %+v", res.Nodes, res.Findings)
	}

	b.ReportAllocs()
	b.ResetTimer()

	for b.Loop() {
		res, err := cli.Validate(context.Background(), opts)
		if err != nil || finding.HasErrors(res.Findings) {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidate_OneNode is render + validate of a one-node lab (secrets loaded each time,
// no bundle generation).
func BenchmarkValidate_OneNode(b *testing.B) { benchValidate(b, 1) }

// BenchmarkValidate_50Nodes is the 50-node target: under 300 ms after the one-time bundle.
func BenchmarkValidate_50Nodes(b *testing.B) { benchValidate(b, 50) }

// BenchmarkPlan_50Nodes is two renders of a 50-node lab and 50 diffs (a sysctl added to
// every node): the target is under 600 ms after the one-time bundle.
func BenchmarkPlan_50Nodes(b *testing.B) {
	desired := testlab.Scaled(b, 50)
	testlab.Edit(b, desired, "patches/common.yaml", "  sysctls:\n", "  sysctls:\n    vm.max_map_count: \"262144\"\n")

	h := newHarness(&testing.T{}, desired, nil)
	h.dirs["base"] = testlab.Scaled(b, 50)
	h.deps.Stdout, h.deps.Stderr = io.Discard, io.Discard

	opts := &cli.PlanOptions{Deps: h.deps, Format: "markdown", PlanOptions: app.PlanOptions{Dir: "examples/homelab", Against: "base"}}

	res, err := cli.Plan(context.Background(), opts)
	if err != nil {
		b.Fatal(err)
	}

	if got := res.Plan.Count()[plan.Update]; got != 50 {
		b.Fatalf("%d updates, want 50: %s", got, res.Plan.Summary())
	}

	b.ReportAllocs()
	b.ResetTimer()

	for b.Loop() {
		if _, err := cli.Plan(context.Background(), opts); err != nil {
			b.Fatal(err)
		}
	}
}

// benchPlan plans a lab of n nodes against itself with the first `changed` workers' own
// patches edited (their hostname), so that the rest are unchanged.
func benchPlan(b *testing.B, nodes, changed int) {
	desired := testlab.Scaled(b, nodes)

	for i := 3; i < 3+changed; i++ {
		name := fmt.Sprintf("node-%02d", i)
		testlab.Edit(b, desired, "nodes/"+name+".yaml", "hostname: "+name+"\n", "hostname: "+name+"-renamed\n")
	}

	h := newHarness(&testing.T{}, desired, nil)
	h.dirs["base"] = testlab.Scaled(b, nodes)
	h.deps.Stdout, h.deps.Stderr = io.Discard, io.Discard

	opts := &cli.PlanOptions{Deps: h.deps, Format: "markdown", PlanOptions: app.PlanOptions{Dir: "examples/homelab", Against: "base"}}

	res, err := cli.Plan(context.Background(), opts)
	if err != nil {
		b.Fatal(err)
	}

	if got := res.Plan.Count()[plan.Noop]; got != nodes-changed {
		b.Fatalf("%d unchanged, want %d: %s", got, nodes-changed, res.Plan.Summary())
	}

	b.ReportAllocs()
	b.ResetTimer()

	for b.Loop() {
		if _, err := cli.Plan(context.Background(), opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidate_500Nodes is the scale the plan and render targets are measured against.
func BenchmarkValidate_500Nodes(b *testing.B) { benchValidate(b, 500) }

// BenchmarkPlan_500Nodes plans 500 nodes of which 10 changed: at most 2.5× validate.
func BenchmarkPlan_500Nodes(b *testing.B) { benchPlan(b, 500, 10) }

// BenchmarkPlan_500NodesUnchanged plans 500 nodes against themselves: at most 2× validate.
func BenchmarkPlan_500NodesUnchanged(b *testing.B) { benchPlan(b, 500, 0) }

func benchRender(b *testing.B, nodes int) {
	files := testlab.Scaled(b, nodes)
	h := newHarness(&testing.T{}, files, nil)
	h.deps.Stdout, h.deps.Stderr = io.Discard, io.Discard

	opts := &cli.RenderOptions{Deps: h.deps, Dir: "examples/homelab", Out: "out"}

	if err := cli.Render(context.Background(), opts); err != nil {
		b.Fatal(err)
	}

	// Beside the nodes' configs, render writes the list of the files it wrote.
	configs := 0

	for name := range h.written {
		if strings.HasSuffix(name, ".yaml") {
			configs++
		}
	}

	if configs != nodes {
		b.Fatalf("%d configs written, want %d", configs, nodes)
	}

	b.ReportAllocs()
	b.ResetTimer()

	for b.Loop() {
		if err := cli.Render(context.Background(), opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRender_50Nodes renders and encodes 50 nodes (files written to memory).
func BenchmarkRender_50Nodes(b *testing.B) { benchRender(b, 50) }

// BenchmarkRender_500Nodes renders and encodes 500 nodes (files written to memory): at
// most 2× validate.
func BenchmarkRender_500Nodes(b *testing.B) { benchRender(b, 500) }
