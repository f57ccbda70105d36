package topf

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/importer/importtest"
)

// topfReference are topf's config types (pkg/config/topf_config.go and node.go at commit
// 2a60138, copied unchanged into testdata/reference): the module proxy does not serve topf,
// so its source stands in for it.
func topfReference(t *testing.T) []importtest.Field {
	t.Helper()

	var srcs [][]byte

	for _, f := range []string{"testdata/reference/topf_config.go.txt", "testdata/reference/node.go.txt"} {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}

		srcs = append(srcs, src)
	}

	fields, err := importtest.ReferenceFields(srcs, "TopfConfig", nil)
	if err != nil {
		t.Fatal(err)
	}

	return fields
}

// TestFieldTable_NamesEveryFieldOfTopfsConfig: docs/import.md has one row for every field
// of topf's config, and no row for a field it does not have.
func TestFieldTable_NamesEveryFieldOfTopfsConfig(t *testing.T) {
	t.Parallel()

	doc, err := os.ReadFile("../../../docs/import.md")
	if err != nil {
		t.Fatal(err)
	}

	importtest.CheckFieldTable(t, "docs/import.md", doc, "topf: topf.yaml", "topf", topfReference(t))
}

// TestReference_EveryTopfFieldIsKnown: every field of topf's config is a key the import
// knows (it reads it, or refuses it with a finding at its line); none falls through as
// unknown to topf.
func TestReference_EveryTopfFieldIsKnown(t *testing.T) {
	t.Parallel()

	for _, f := range topfReference(t) {
		key := strings.TrimSuffix(f.Path, "[]")
		if k, ok := strings.CutPrefix(key, "nodes[]."); ok {
			if !slices.Contains(nodeKeys, k) {
				t.Errorf("topf's %s (%s) is not a node key the import knows", f.Path, f.Type)
			}

			continue
		}

		if !slices.Contains(topKeys, key) {
			t.Errorf("topf's %s (%s) is not a key the import knows", f.Path, f.Type)
		}
	}
}
