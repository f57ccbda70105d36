package yamlpos_test

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/yamlpos"
)

func TestJSONPatch_IndexesTheConfigPathsEachOperationSets(t *testing.T) {
	patch := `- op: add
  path: /machine/sysctls/a
  value: "1"
- op: remove
  path: /machine/kernel/modules/0
- op: add
  path: /machine/kernel/modules/-
  value:
    name: nvidia
- op: replace
  path: /machine/nodeLabels/node-role.kubernetes.io~1gpu
  value: "true"
`

	ops, ix, ok := yamlpos.JSONPatch([]byte(patch))
	if !ok {
		t.Fatal("not read as an RFC 6902 patch")
	}

	var got []string
	for _, op := range ops {
		got = append(got, op.Path)
	}

	want := []string{"machine.sysctls.a", "machine.kernel.modules[0]", "machine.kernel.modules", "machine.nodeLabels.node-role.kubernetes.io/gpu"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("paths = %q, want %q", got, want)
	}

	if ops[1].PathLine != 5 {
		t.Errorf("remove's path line = %d, want 5", ops[1].PathLine)
	}

	for path, line := range map[string]int{
		"machine.sysctls.a":                              3,
		"machine.kernel.modules[0]":                      5,
		"machine.kernel.modules":                         8,
		"machine.kernel.modules[-].name":                 9,
		"machine.nodeLabels.node-role.kubernetes.io/gpu": 12,
	} {
		if got, exact := ix.Docs[0].Nearest(path); !exact || got != line {
			t.Errorf("%s at line %d (exact %v), want %d", path, got, exact, line)
		}
	}
}

func TestJSONPatch_StrategicMergePatchIsNotAnRFC6902Patch(t *testing.T) {
	if _, _, ok := yamlpos.JSONPatch([]byte("machine:\n  sysctls: {a: b}\n")); ok {
		t.Error("a mapping was read as a list of operations")
	}
}

func TestDoc_MatchResolvesAnyIndexInOrderOfLines(t *testing.T) {
	ix, err := yamlpos.Parse([]byte("machine:\n  modules:\n    - name: a\n      bogus: 1\n    - name: b\n    - name: c\n      bogus: 2\n"))
	if err != nil {
		t.Fatal(err)
	}

	got := ix.Docs[0].Match("machine.modules[*].bogus")
	if want := []string{"machine.modules[0].bogus", "machine.modules[2].bogus"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Match = %q, want %q", got, want)
	}
}

func TestDoc_PathAtNamesTheValueAtALineAndColumn(t *testing.T) {
	ix, err := yamlpos.Parse([]byte("a:\n  b: [x, y]\n  c: {d: 1, e: 2}\n  f: 3\n"))
	if err != nil {
		t.Fatal(err)
	}

	d := ix.Docs[0]

	for _, tc := range []struct {
		line, column int
		want         string
	}{
		{2, 6, "a.b"},     // the flow sequence itself
		{2, 10, "a.b[1]"}, // an item of it
		{3, 0, "a.c"},     // no column: the flow mapping holding the keys of the line
		{4, 0, "a.f"},
		{9, 0, ""},
	} {
		if got := d.PathAt(tc.line, tc.column); got != tc.want {
			t.Errorf("PathAt(%d, %d) = %q, want %q", tc.line, tc.column, got, tc.want)
		}
	}
}

type spec struct {
	Name  string `yaml:"name"`
	Items []item `yaml:"items"`
}

type item struct {
	Role string `yaml:"role"`
}

func TestUnknownFields_FollowsMergeKeysAndAliases(t *testing.T) {
	data := "name: x\nitems:\n  - &a\n    role: w\n  - <<: *a\n  - *a\n  - <<: [*a]\n    rol: typo\n"

	var root yaml.Node
	if err := yaml.Unmarshal([]byte(data), &root); err != nil {
		t.Fatal(err)
	}

	got := yamlpos.UnknownFields(&root, reflect.TypeFor[spec]())
	if want := []yamlpos.Unknown{{Path: "items[3].rol", Line: 8, Key: "rol", Known: []string{"role"}}}; !reflect.DeepEqual(got, want) {
		t.Errorf("unknown = %+v, want %+v", got, want)
	}
}

// nest is a type the walk descends into at every level of a sequence.
type nest []nest

func TestUnknownFields_AliasesThatMultiplyAreCheckedOnce(t *testing.T) {
	// Ten levels of ten aliases each: a walk that followed every alias would visit 10^10 nodes.
	var b strings.Builder

	b.WriteString("l0: &l0 [[]]\n")

	for i := 1; i <= 10; i++ {
		prev := "*l" + strconv.Itoa(i-1)
		b.WriteString("l" + strconv.Itoa(i) + ": &l" + strconv.Itoa(i) + " [" + strings.Repeat(prev+", ", 9) + prev + "]\n")
	}

	var root yaml.Node
	if err := yaml.Unmarshal([]byte(b.String()), &root); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	yamlpos.UnknownFields(&root, reflect.TypeFor[map[string]nest]())

	if d := time.Since(start); d > time.Second {
		t.Errorf("took %s", d)
	}
}

func TestWithoutValues_DropsQuotedValuesAndKeepsSyntax(t *testing.T) {
	for msg, want := range map[string]string{
		"cannot construct !!str `m1tkhQ/...` into bool":               "cannot construct !!str into bool",
		`parse "m1tkhQ/xyz": first path segment cannot contain colon`: "parse: first path segment cannot contain colon",
		`strconv.ParseInt: parsing "a\"b": invalid syntax`:            "strconv.ParseInt: parsing: invalid syntax",
		"cannot use 'secretvalue' as a map key":                       "cannot use as a map key",
		"did not find expected ',' or ']'":                            "did not find expected ',' or ']'",
	} {
		if got := yamlpos.WithoutValues(msg); got != want {
			t.Errorf("WithoutValues(%q) = %q, want %q", msg, got, want)
		}
	}
}

func TestProblems_MessagesHoldNoValue(t *testing.T) {
	var v struct {
		Wipe bool `yaml:"wipe"`
	}

	err := yaml.Unmarshal([]byte("wipe: m1tkhQ/secretvalue\n"), &v)

	p := yamlpos.Problems(err)
	if len(p) != 1 || p[0].Line != 1 || strings.Contains(p[0].Message, "m1tkhQ") {
		t.Errorf("problems = %+v", p)
	}
}

func FuzzWithoutValues(f *testing.F) {
	f.Add("m1tkhQ/secretvalue", "cannot construct !!str ", " into bool")
	f.Add("a b", `parse "`, `": bad`)

	f.Fuzz(func(t *testing.T, value, before, after string) {
		// Quoted single characters are kept on purpose: the scanner names syntax so. Quotes
		// around the value only, or the text around it could make a quoted value of its own.
		if utf8.RuneCountInString(value) < 2 || strings.ContainsAny(value+before+after, "`\"'\\") {
			return
		}

		for _, q := range []string{"`", `"`} {
			if got := yamlpos.WithoutValues(before + q + value + q + after); strings.Contains(got, q+value+q) {
				t.Fatalf("WithoutValues kept %s%s%s: %q", q, value, q, got)
			}
		}
	})
}

func FuzzProblems(f *testing.F) {
	f.Add([]byte("wipe: m1tkhQ/secretvalue\n"))
	f.Add([]byte("wipe: [a\n"))

	f.Fuzz(func(t *testing.T, data []byte) {
		var v struct {
			Wipe bool              `yaml:"wipe"`
			Port int               `yaml:"port"`
			Args map[string]string `yaml:"args"`
		}

		err := yaml.Unmarshal(data, &v)
		if err == nil {
			return
		}

		for _, p := range yamlpos.Problems(err) {
			if strings.Contains(p.Message, "`") && strings.Count(p.Message, "`") > 1 {
				t.Fatalf("a quoted value survived: %q", p.Message)
			}
		}
	})
}
