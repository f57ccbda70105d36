package talhelper_test

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/importer/talhelper"
	"github.com/talops/talops/internal/testlab"
)

var update = flag.Bool("update", false, "rewrite golden files")

func input(t *testing.T, dir string, env map[string]string) talhelper.Input {
	t.Helper()

	data, err := os.ReadFile(filepath.Join("testdata", dir, "talconfig.yaml"))
	if err != nil {
		t.Fatal(err)
	}

	return talhelper.Input{
		File: "talconfig.yaml", Data: data, Secrets: "secrets.sops.yaml",
		Lookup: func(name string) (string, bool) {
			v, ok := env[name]

			return v, ok
		},
		ReadPatch: func(rel string) ([]byte, error) { return os.ReadFile(filepath.Join("testdata", dir, rel)) },
	}
}

// show is a result as the golden file holds it: every file, then every finding.
func show(res *talhelper.Result) string {
	var b strings.Builder

	for _, f := range res.Files {
		b.WriteString("=== " + f.Path + "\n" + string(f.Data))

		if len(f.Data) > 0 && !strings.HasSuffix(string(f.Data), "\n") {
			b.WriteString("\n\\ no newline at end of file\n")
		}
	}

	b.WriteString("=== findings\n")

	for _, f := range res.Findings {
		b.WriteString(strings.Join([]string{string(f.Severity), f.Code, f.File, itoa(f.Line), f.Node, f.Path, f.Message}, " | ") + "\n")
	}

	return b.String()
}

func itoa(n int) string {
	if n == 0 {
		return "-"
	}

	return strconv.Itoa(n)
}

// TestImport_EveryFieldIsMappedOrReportedAtItsLine: the fields talops expresses become
// talops.yaml entries and patches in talhelper's order; the others are findings at their
// line; env values are substituted (an unset one is an error), $$ is a dollar sign.
func TestImport_EveryFieldIsMappedOrReportedAtItsLine(t *testing.T) {
	res, err := talhelper.Import(input(t, "fields", map[string]string{"RACK": "r1", "MAP_COUNT": "262144"}))
	if err != nil {
		t.Fatal(err)
	}

	testlab.Golden(t, "fields.golden", show(res), *update)
}

// TestImport_TalopsYAMLLoads: what the import writes is a talops.yaml talops reads.
func TestImport_TalopsYAMLLoads(t *testing.T) {
	res, err := talhelper.Import(input(t, "fields", map[string]string{"RACK": "r1", "MAP_COUNT": "1", "UNSET_VAR": "x"}))
	if err != nil {
		t.Fatal(err)
	}

	files := cluster.MapFiles{"secrets.sops.yaml": []byte("{}\n")}
	for _, f := range res.Files {
		files[f.Path] = f.Data
	}

	c, err := cluster.Load("lab", files)
	if err != nil {
		t.Fatalf("talops.yaml does not load: %v", err)
	}

	if got := len(c.Spec.Nodes); got != 2 {
		t.Fatalf("want 2 nodes, got %d", got)
	}
}

func TestImport_RefusesWhatCannotBeAClusterWithItsLine(t *testing.T) {
	for _, tc := range []struct {
		name, talconfig, want string
	}{
		{"no YAML", "a: [", "talconfig.yaml: not YAML"},
		{"no cluster name", "endpoint: https://a:6443\ntalosVersion: v1.13.0\nkubernetesVersion: v1.35.0\nnodes: [{hostname: a}]\n", "talconfig.yaml:1: clusterName: required"},
		{"no nodes", "clusterName: a\nendpoint: https://a:6443\ntalosVersion: v1.13.0\nkubernetesVersion: v1.35.0\n", "talconfig.yaml:1: nodes: no nodes"},
		{"a node without hostname", "clusterName: a\nendpoint: https://a:6443\ntalosVersion: v1.13.0\nkubernetesVersion: v1.35.0\nnodes:\n  - ipAddress: 10.0.0.1\n", "talconfig.yaml:6: nodes[0].hostname: required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := talhelper.Import(talhelper.Input{File: "talconfig.yaml", Data: []byte(tc.talconfig)})

			var ie *cluster.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("want an input error, got %v", err)
			}

			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("want %q…, got %q", tc.want, err.Error())
			}
		})
	}
}
