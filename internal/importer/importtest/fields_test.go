package importtest_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/talops/talops/internal/importer/importtest"
)

const referenceSrc = `package config

type Config struct {
	Name  string  ` + "`yaml:\"name\"`" + `
	Nodes []Node  ` + "`yaml:\"nodes\"`" + `
	Group Group   ` + "`yaml:\"group\"`" + `
	Skip  string  ` + "`yaml:\"-\"`" + `
}

type Node struct {
	Host  string ` + "`yaml:\"host\"`" + `
	Group        ` + "`yaml:\",inline\"`" + `
}

type Group struct {
	Labels map[string]string ` + "`yaml:\"labels\"`" + `
	Files  Files             ` + "`yaml:\"files\"`" + `
}

type Files []*File

type File struct {
	Extra ` + "`yaml:\",inline\"`" + `
	Mode  int ` + "`yaml:\"mode\"`" + `
}
`

type extra struct {
	Path string `yaml:"path"`
}

func TestReferenceFields_ListsEachTypeOnceWhereItFirstAppears(t *testing.T) {
	t.Parallel()

	fields, err := importtest.ReferenceFields([][]byte{[]byte(referenceSrc)}, "Config", map[string]reflect.Type{"Extra": reflect.TypeFor[extra]()})
	if err != nil {
		t.Fatal(err)
	}

	var got []string
	for _, f := range fields {
		got = append(got, f.Path)
	}

	want := []string{"name", "nodes[]", "nodes[].host", "nodes[].labels", "nodes[].files[]", "nodes[].files[].path", "nodes[].files[].mode", "group"}
	if !slices.Equal(got, want) {
		t.Errorf("fields %v\nwant   %v", got, want)
	}
}

func TestFieldTable_ReadsTheRowsUnderItsHeadingOnly(t *testing.T) {
	t.Parallel()

	doc := "# Doc\n\n## a\n\n| field | status | how |\n|---|---|---|\n| `x` | imported | as x |\n| `y[]` | refused | no |\n\n## b\n\n| `z` | imported | z |\n"

	rows, err := importtest.FieldTable([]byte(doc), "a")
	if err != nil {
		t.Fatal(err)
	}

	want := []importtest.Row{{Path: "x", Status: "imported", How: "as x", Line: 7}, {Path: "y[]", Status: "refused", How: "no", Line: 8}}
	if !slices.Equal(rows, want) {
		t.Errorf("rows %+v\nwant %+v", rows, want)
	}

	if _, err := importtest.FieldTable([]byte(doc), "c"); err == nil {
		t.Error("a heading with no table gave no error")
	}
}
