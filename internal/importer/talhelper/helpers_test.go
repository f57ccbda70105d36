package talhelper_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/importer/talhelper"
	"github.com/talops/talops/internal/scaffold"
)

// head is a talconfig's cluster part, on a Talos release of the 1.12 contract; the tests
// append their nodes.
const head = "clusterName: lab\nendpoint: https://10.0.0.10:6443\ntalosVersion: v1.12.4\nkubernetesVersion: v1.35.0\n"

// importText imports a talconfig given as text, with the patch files and variables given.
func importText(t *testing.T, talconfig string, files, env map[string]string) *talhelper.Result {
	t.Helper()

	res, err := talhelper.Import(talhelper.Input{
		File: "talconfig.yaml", Data: []byte(talconfig),
		Lookup: func(name string) (string, bool) {
			v, ok := env[name]

			return v, ok
		},
		ReadPatch: func(rel string) ([]byte, error) {
			v, ok := files[rel]
			if !ok {
				return nil, errNoFile
			}

			return []byte(v), nil
		},
	})
	if err != nil {
		t.Fatalf("import: %v", err)
	}

	return res
}

var errNoFile = errors.New("no such file")

// written is the text of one file the import wrote; the test fails without it.
func written(t *testing.T, res *talhelper.Result, path string) string {
	t.Helper()

	var paths []string

	for _, f := range res.Files {
		if f.Path == path {
			return string(f.Data)
		}

		paths = append(paths, f.Path)
	}

	t.Fatalf("no %s among %v", path, paths)

	return ""
}

// findingPlaces are the findings of a code whose config path contains part, as
// "line path" strings in order.
func findingPlaces(fs []finding.Finding, code, part string) []string {
	var out []string

	for _, f := range fs {
		if f.Code == code && strings.Contains(f.Path, part) {
			out = append(out, itoa(f.Line)+" "+f.Path)
		}
	}

	return out
}

// hasFile says whether the import wrote a file.
func hasFile(res *talhelper.Result, path string) bool {
	return slices.ContainsFunc(res.Files, func(f scaffold.File) bool { return f.Path == path })
}
