package app_test

import (
	"context"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/mask"
	"github.com/talops/talops/internal/secrets"
	"github.com/talops/talops/internal/testlab"
)

// twoStates serves desired as the directory "lab" and current as "base".
func twoStates(t *testing.T, desired, current cluster.MapFiles) *app.Deps {
	t.Helper()

	d := deps(t, nil)
	d.OpenDir = func(dir string) (cluster.Files, func() error, error) {
		switch dir {
		case "lab":
			return desired, func() error { return nil }, nil
		case "base":
			return current, func() error { return nil }, nil
		}

		return nil, nil, errors.New("no such directory")
	}

	var m *mask.Masker

	d.Mask = func(values ...string) { m = mask.New(append(m.Values(), values...)...) }
	d.Masker = func() *mask.Masker { return m }
	d.Secrets = &secrets.Loader{Getenv: func(string) string { return "" }, ReadFile: os.ReadFile, Now: func() time.Time { return time.Unix(0, 0) }}

	return d
}

// edit changes a file of files with strings.Replace, and fails when old is not there.
func edit(t testing.TB, files cluster.MapFiles, name, old, new string) {
	t.Helper()

	if !strings.Contains(string(files[name]), old) {
		t.Fatalf("%s has no %q", name, old)
	}

	files[name] = []byte(strings.Replace(string(files[name]), old, new, 1))
}

// A plan against another state is computed a chunk of nodes at a time; whatever the size of
// the chunks, it is the plan apply computes over every node at once: the same nodes, diffs,
// findings, version bump and hash.
func TestPlanStreamed_IsThePlanOverEveryNode(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name             string
		desired, current func(t testing.TB) cluster.MapFiles
	}{
		{
			name:    "the lab against itself",
			desired: testlab.Files, current: testlab.Files,
		},
		{
			name: "a node renamed, one removed, one added, Kubernetes and Talos moved",
			desired: func(t testing.TB) cluster.MapFiles {
				f := testlab.Files(t)
				edit(t, f, "nodes/k8s-node2.yaml", "k8s-node2", "k8s-node2-renamed")
				edit(t, f, "talops.yaml", "  - name: k8s-node4\n    address: 10.0.20.104", "  - name: k8s-node5\n    address: 10.0.20.105")
				edit(t, f, "talops.yaml", "kubernetesVersion: v1.37.1", "kubernetesVersion: v1.37.2")
				edit(t, f, "talops.yaml", "talosVersion: v1.14.7", "talosVersion: v1.14.8")

				return f
			},
			current: testlab.Files,
		},
		{
			name:    "a node the current state cannot render",
			desired: testlab.Files,
			current: func(t testing.TB) cluster.MapFiles {
				f := testlab.Files(t)
				f["nodes/k8s-node3.yaml"] = []byte("machine:\n  network: [not, a, map]\n")

				return f
			},
		},
		{
			name: "a desired state with an error",
			desired: func(t testing.TB) cluster.MapFiles {
				f := testlab.Files(t)
				f["nodes/k8s-node3.yaml"] = []byte("machine:\n  network: [not, a, map]\n")

				return f
			},
			current: testlab.Files,
		},
		{
			name: "a new cluster", desired: testlab.Files,
			current: func(testing.TB) cluster.MapFiles { return cluster.MapFiles{"README.md": []byte("nothing yet\n")} },
		},
		{
			name: "50 nodes with GPU workers, ten renamed",
			desired: func(t testing.TB) cluster.MapFiles {
				f := testlab.Scaled(t, 50)
				for _, n := range []string{"node-03", "node-05", "node-10", "node-20", "node-49"} {
					edit(t, f, "nodes/"+n+".yaml", n, n+"-renamed")
				}

				return f
			},
			current: func(t testing.TB) cluster.MapFiles { return testlab.Scaled(t, 50) },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			opts := app.PlanOptions{Dir: "lab", Against: "base", Offline: true}

			want, err := app.PlanOverEveryNode(context.Background(), twoStates(t, tc.desired(t), tc.current(t)), opts)
			if err != nil {
				t.Fatal(err)
			}

			if want.Plan == nil || want.Plan.Hash == "" && !want.Plan.Blocked {
				t.Fatalf("no plan to compare with: %+v", want)
			}

			for _, size := range []int{0, 1, 2, 3} {
				got, err := app.PlanInChunks(context.Background(), twoStates(t, tc.desired(t), tc.current(t)), opts, size)
				if err != nil {
					t.Fatalf("%d at a time: %v", size, err)
				}

				if !reflect.DeepEqual(got, want) {
					t.Errorf("%d node(s) at a time:\n%+v\n%+v\n%+v\nwant, over every node:\n%+v\n%+v\n%+v", size, got.Plan, got.Findings, got.Bump, want.Plan, want.Findings, want.Bump)
				}
			}
		})
	}
}
