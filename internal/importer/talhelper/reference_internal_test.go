package talhelper

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/siderolabs/talos/pkg/machinery/config/types/v1alpha1"

	"github.com/talops/talops/internal/importer/importtest"
)

// talhelperReference are talhelper v3.1.16's config types (pkg/config/config.go, copied
// unchanged into testdata/reference): the module is not a dependency of talops, so its
// source stands in for it. The fields of Talos' types it embeds inline are read from
// Talos' own types.
func talhelperReference(t *testing.T) []importtest.Field {
	t.Helper()

	src, err := os.ReadFile("testdata/reference/config.go.txt")
	if err != nil {
		t.Fatal(err)
	}

	fields, err := importtest.ReferenceFields([][]byte{src}, "TalhelperConfig", map[string]reflect.Type{
		"v1alpha1.MachineFile":           reflect.TypeFor[v1alpha1.MachineFile](),
		"v1alpha1.ClusterInlineManifest": reflect.TypeFor[v1alpha1.ClusterInlineManifest](), //nolint:staticcheck // talhelper's reference still names it
	})
	if err != nil {
		t.Fatal(err)
	}

	return fields
}

// TestFieldTable_NamesEveryFieldOfTalhelpersConfig: docs/import.md has one row for every
// field of talhelper's config, and no row for a field it does not have.
func TestFieldTable_NamesEveryFieldOfTalhelpersConfig(t *testing.T) {
	t.Parallel()

	doc, err := os.ReadFile("../../../docs/import.md")
	if err != nil {
		t.Fatal(err)
	}

	fields := talhelperReference(t)
	rows := importtest.CheckFieldTable(t, "docs/import.md", doc, "talhelper: talconfig.yaml", "talhelper", fields)

	for _, f := range fields {
		r, ok := rows[f.Path]
		if !ok {
			continue
		}

		switch refused := codeRefuses(f.Path); {
		case refused && r.Status != "refused":
			t.Errorf("docs/import.md:%d: %s is %q, but the import refuses it", r.Line, f.Path, r.Status)
		case !refused && r.Status == "refused":
			t.Errorf("docs/import.md:%d: %s is refused, but the import reads it", r.Line, f.Path)
		}
	}
}

// TestReference_EveryFieldIsReadOrRefused: every field of talhelper's config is one the
// import reads (its key lists, and the types it reads a field's entries through, have it)
// or one it refuses with a finding; none falls through as unknown.
func TestReference_EveryFieldIsReadOrRefused(t *testing.T) {
	t.Parallel()

	for _, f := range talhelperReference(t) {
		if !codeReads(f.Path) && !codeRefuses(f.Path) {
			t.Errorf("talhelper's %s (%s) is neither read nor refused by the import", f.Path, f.Type)
		}
	}
}

// codeRefuses says the import refuses the field with a finding whatever its value.
func codeRefuses(path string) bool {
	key, ok := strings.CutPrefix(path, "nodes[].")

	return ok && slices.Contains(talhelperOnlyNodeKeys, key)
}

// codeReads says the import reads the field: a top-level key it knows, a node key, or a
// key of the type it reads a node field's (or inline manifest's) value through.
func codeReads(path string) bool {
	parts := strings.Split(strings.ReplaceAll(path, "[]", ""), ".")

	switch {
	case len(parts) == 1:
		return slices.Contains(topKeys, parts[0])
	case parts[0] == "nodes" && len(parts) == 2:
		return slices.Contains(nodeKeys, parts[1]) || parts[1] == "imageSchematic"
	case parts[0] == "nodes":
		t, ok := groupFields()[parts[1]]

		return ok && hasYAMLPath(t, parts[2:])
	case parts[0] == "inlineManifests":
		return hasYAMLPath(reflect.TypeFor[inlineManifestEntry](), parts[1:])
	case parts[0] == "imageFactory" && len(parts) == 2:
		return slices.Contains(imageFactoryKeys, parts[1])
	}

	return false
}

// hasYAMLPath says whether a type (through pointers, slices and inline structs) has the
// yaml keys of path, one below the other.
func hasYAMLPath(t reflect.Type, path []string) bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}

	if len(path) == 0 {
		return true
	}

	if t.Kind() != reflect.Struct {
		return false
	}

	for i := range t.NumField() {
		f := t.Field(i)
		key, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")

		switch {
		case opts == "inline" && hasYAMLPath(f.Type, path):
			return true
		case key == path[0]:
			return hasYAMLPath(f.Type, path[1:])
		}
	}

	return false
}
