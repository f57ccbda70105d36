package report_test

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/talops/talops/internal/report"
	"github.com/talops/talops/internal/rules"
)

var update = flag.Bool("update", false, "rewrite docs/findings.md")

// TestFindingCodes_EveryCodeOnceAndTheDocsGenerated: every Code constant the rules declare
// is in the reference exactly once (and nothing else is), sorted, and docs/findings.md is
// what the reference generates.
func TestFindingCodes_EveryCodeOnceAndTheDocsGenerated(t *testing.T) {
	var declared []string
	for _, file := range []string{"../rules/codes.go", "../importer/codes.go"} {
		declared = append(declared, declaredCodes(t, file)...)
	}

	slices.Sort(declared)
	declared = slices.Compact(declared)

	var documented []string
	for _, c := range rules.Reference() {
		documented = append(documented, c.Code)

		if c.Severity == "" || c.Meaning == "" || strings.Contains(c.Meaning, "\n") {
			t.Errorf("%s: severity %q, meaning %q: both one line, neither empty", c.Code, c.Severity, c.Meaning)
		}
	}

	if !slices.IsSorted(documented) {
		t.Error("the reference is not sorted by code")
	}

	if got, want := slices.Compact(slices.Clone(documented)), documented; len(got) != len(want) {
		t.Error("a code is documented twice")
	}

	slices.Sort(declared)

	if !slices.Equal(declared, documented) {
		t.Errorf("declared codes\n%q\ndocumented\n%q", declared, documented)
	}

	const path = "../../docs/findings.md"

	want := report.FindingCodes(rules.Reference())
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	if string(got) != want {
		t.Errorf("%s is not what internal/rules/reference.go generates: run go test ./internal/report -run TestFindingCodes -update", path)
	}
}

// declaredCodes reads the string constants named Code… of a Go file.
func declaredCodes(t *testing.T, file string) []string {
	t.Helper()

	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}

	var out []string

	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}

		for i, name := range vs.Names {
			if strings.HasPrefix(name.Name, "Code") && i < len(vs.Values) {
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					v, _ := strconv.Unquote(lit.Value)
					out = append(out, v)
				}
			}
		}

		return true
	})

	return out
}
