package topf_test

import (
	"io/fs"
	"slices"
	"strconv"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/importer/topf"
)

// importText imports a topf.yaml given as text, with no patches.
func importText(t *testing.T, topfYAML string) *topf.Result {
	t.Helper()

	res, err := topf.Import(topf.Input{
		File: "topf.yaml", Data: []byte(topfYAML),
		ListFiles: func(string) ([]string, error) { return nil, nil },
		ReadFile:  func(string) ([]byte, error) { return nil, fs.ErrNotExist },
	})
	if err != nil {
		t.Fatal(err)
	}

	return res
}

// talopsSpec is the talops.yaml an import wrote, parsed.
func talopsSpec(t *testing.T, res *topf.Result) cluster.Spec {
	t.Helper()

	for _, f := range res.Files {
		if f.Path == cluster.FileName {
			c, err := cluster.Parse(f.Data)
			if err != nil {
				t.Fatalf("talops.yaml does not parse: %v\n%s", err, f.Data)
			}

			return c.Spec
		}
	}

	t.Fatal("no talops.yaml written")

	return cluster.Spec{}
}

func TestImport_ANodePlatformOtherThanTheClustersBecomesTheNodesPlatform(t *testing.T) {
	const head = "clusterName: a\nclusterEndpoint: https://a:6443\nkubernetesVersion: 1.35.0\ntalosVersion: 1.13.3\n"

	for _, tc := range []struct {
		name, topfYAML, cluster string
		nodes                   []string
	}{
		{
			name:     "a nocloud node beside metal ones",
			topfYAML: head + "nodes:\n  - {host: a, role: control-plane}\n  - {host: b, role: worker, platform: nocloud}\n",
			nodes:    []string{"", "nocloud"},
		},
		{
			name:     "a metal box on a nocloud cluster",
			topfYAML: head + "platform: nocloud\nnodes:\n  - {host: a, role: control-plane}\n  - {host: b, role: worker, platform: metal}\n",
			cluster:  "nocloud", nodes: []string{"", "metal"},
		},
		{
			name:     "a node naming the cluster's platform again names none",
			topfYAML: head + "platform: nocloud\nnodes:\n  - {host: a, role: control-plane, platform: nocloud}\n",
			cluster:  "nocloud", nodes: []string{""},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := importText(t, tc.topfYAML)
			spec := talopsSpec(t, res)

			if spec.Platform != tc.cluster {
				t.Errorf("platform = %q, want %q", spec.Platform, tc.cluster)
			}

			var got []string
			for _, n := range spec.Nodes {
				got = append(got, n.Platform)
			}

			if !slices.Equal(got, tc.nodes) {
				t.Errorf("node platforms = %q, want %q", got, tc.nodes)
			}

			for _, f := range res.Findings {
				if f.Path == "nodes[1].platform" || f.Path == "nodes[0].platform" {
					t.Errorf("finding on the node's platform, which is imported: %+v", f)
				}
			}
		})
	}
}

// talops has one talosVersion and one imageFactory per cluster: a node's own is a finding
// at its line that says what the node gets instead.
func TestImport_ANodesOwnFactoryOrTalosVersionIsAFindingNamingWhatItGets(t *testing.T) {
	res := importText(t, "clusterName: a\nclusterEndpoint: https://a:6443\nkubernetesVersion: 1.35.0\ntalosVersion: 1.13.3\nnodes:\n"+
		"  - host: a\n    role: worker\n    factory: factory.lab\n    talosVersion: 1.12.0\n")

	want := []string{
		"topf.yaml:8 nodes[0].factory talops has one imageFactory per cluster: the node's installer comes from factory.talos.dev, not factory.lab",
		"topf.yaml:9 nodes[0].talosVersion talops has one talosVersion per cluster: the node renders, installs and upgrades with v1.13.3, not v1.12.0",
	}

	var got []string

	for _, f := range res.Findings {
		if f.Code == topf.CodeUnsupported && f.Node == "a" {
			got = append(got, f.File+":"+strconv.Itoa(f.Line)+" "+f.Path+" "+f.Message)
		}
	}

	slices.Sort(got)

	if !slices.Equal(got, want) {
		t.Errorf("findings\n%q\nwant\n%q", got, want)
	}
}
