package render_test

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/siderolabs/talos/pkg/machinery/config/encoder"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/testlab"
)

// Two states that share most patch files, as a plan's do, named from different
// directories (plan --against) so that a patch loaded by one is handed out under the
// other's name: rendered with one cache, each must render exactly as it does alone.
func TestRender_TwoStatesSharingAPatchCacheRenderAsEachAlone(t *testing.T) {
	desired := testlab.Files(t)
	base := testlab.Files(t)

	// One byte apart: each state renders its own hostname.
	testlab.Edit(t, base, "nodes/k8s-node2.yaml", "hostname: k8s-node2", "hostname: k8s-nodeX")
	// One byte apart, and the base's does not load: its error is the base's alone.
	testlab.Edit(t, base, "nodes/k8s-node1.yaml", "nodeLabels:", "nodeLabelz:")
	// The same invalid patch in both: each state's error names its own file.
	for _, files := range []cluster.MapFiles{desired, base} {
		files["nodes/k8s-node3.yaml"] = []byte("machine:\n  nodeLabelz:\n    a: b\n")
		// Loads, and fails when applied: the failure is placed in each state's own file.
		files["nodes/k8s-node4.yaml"] = []byte("- op: replace\n  path: /machine/nope/x\n  value: 1\n")
	}

	// Made from other generate inputs, with the same patches: the control plane's install
	// disk, and in a third state every node's Kubernetes version.
	testlab.Edit(t, base, "talops.yaml", "installDisk: /dev/sda", "installDisk: /dev/sdb")

	upgrade := maps.Clone(desired)
	testlab.SetVersions(t, upgrade, "", "v1.37.2")

	dirs := []string{"examples/homelab", "base/homelab", "upgrade/homelab"}
	states := []*cluster.Cluster{load(t, dirs[0], desired), load(t, dirs[1], base), load(t, dirs[2], upgrade)}
	failing := [][]string{{"k8s-node3", "k8s-node4"}, {"k8s-node1", "k8s-node3", "k8s-node4"}, {"k8s-node3", "k8s-node4"}}

	for _, encodeOnly := range []bool{false, true} {
		name := "whole"
		if encodeOnly {
			name = "encode only"
		}

		t.Run(name, func(t *testing.T) {
			alone := make([][]render.Result, len(states))
			for i, c := range states {
				alone[i] = renderState(t, c, render.Options{EncodeOnly: encodeOnly})
			}

			cache := render.NewPatchCache()
			shared := make([][]render.Result, len(states))

			for i, c := range states {
				shared[i] = renderState(t, c, render.Options{EncodeOnly: encodeOnly, Patches: cache})
			}

			// Once more, every patch now from the cache the other state filled.
			again := renderState(t, states[0], render.Options{EncodeOnly: encodeOnly, Patches: cache})

			for i := range states {
				sameRender(t, alone[i], shared[i])
			}

			sameRender(t, alone[0], again)

			// Neither render changed a patch the other holds: the configs kept decode to the
			// bytes they had alone.
			if !encodeOnly {
				for i := range states {
					for k, r := range shared[i] {
						if r.Err != nil {
							continue
						}

						got, err := r.Machine.Config.EncodeBytes(encoder.WithComments(encoder.CommentsDisabled))
						want, _ := alone[i][k].Machine.Bytes()

						if err != nil || !bytes.Equal(got, want) {
							t.Errorf("node %s of state %d changed after the other state rendered (%v)", r.Name, i, err)
						}
					}
				}
			}

			for i, dir := range dirs {
				for _, r := range shared[i] {
					if r.Err != nil && !strings.Contains(r.Err.Error(), dir+"/nodes/") {
						t.Errorf("node %s of %s fails outside its own files: %v", r.Name, dir, r.Err)
					}
				}
			}

			for i, dir := range dirs {
				var got []string

				for _, r := range shared[i] {
					if r.Err != nil {
						got = append(got, r.Name)
					}
				}

				if !slices.Equal(got, failing[i]) {
					t.Errorf("%s: %v fail, want %v", dir, got, failing[i])
				}
			}

			// What the cache is for: a node made from the same is not rendered again.
			if !encodeOnly && again[2].Machine.Config != shared[0][2].Machine.Config {
				t.Error("k8s-node2 is rendered again from the same inputs")
			}
		})
	}
}

func load(t *testing.T, dir string, files cluster.MapFiles) *cluster.Cluster {
	t.Helper()

	c, err := cluster.Load(dir, files)
	if err != nil {
		t.Fatal(err)
	}

	return c
}

func renderState(t *testing.T, c *cluster.Cluster, opts render.Options) []render.Result {
	t.Helper()

	b, lab := labInputs(t, c)
	opts.Installer = lab.Installer

	return render.All(context.Background(), c, b, opts)
}

// sameRender fails unless got renders every node as want does: the same bytes, the same
// layers (files, in order), or the same error.
func sameRender(t *testing.T, want, got []render.Result) {
	t.Helper()

	for i, w := range want {
		g := got[i]
		if (g.Err == nil) != (w.Err == nil) || g.Err != nil && g.Err.Error() != w.Err.Error() {
			t.Errorf("node %s: fails with %v, alone with %v", w.Name, g.Err, w.Err)

			continue
		}

		if w.Err != nil {
			continue
		}

		gb, _ := g.Machine.Bytes()
		wb, _ := w.Machine.Bytes()

		if !bytes.Equal(gb, wb) {
			t.Errorf("node %s: renders other bytes than alone", w.Name)
		}

		if !slices.EqualFunc(g.Machine.Layers, w.Machine.Layers, func(a, b render.Layer) bool { return a.File == b.File }) {
			t.Errorf("node %s: layers %v, alone %v", w.Name, g.Machine.Layers, w.Machine.Layers)
		}
	}
}
