package yamlpos_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/testlab/hostile"
	"github.com/talops/talops/internal/yamlpos"
)

func TestCheck_RefusesAliasBombsAtTheirLine(t *testing.T) {
	for _, levels := range []int{5, 6, 9, 30} {
		t.Run(fmt.Sprintf("%d levels", levels), func(t *testing.T) {
			doc := "machine:\n  kubelet:\n    extraConfig: " + hostile.AliasBomb(levels) + "\n"

			var over *yamlpos.BudgetError
			if err := yamlpos.Check([]byte(doc)); !errors.As(err, &over) {
				t.Fatalf("Check = %v, want a *BudgetError", err)
			}

			if over.Line != 3 {
				t.Errorf("line %d, want 3 (the bomb's)", over.Line)
			}
		})
	}
}

func TestCheck_AcceptsAnchorsAsConfigsUseThem(t *testing.T) {
	// A talconfig's shared network settings, used by 200 nodes; a patch's merge keys.
	var b strings.Builder

	b.WriteString("common: &net\n  interfaces:\n")

	for i := range 10 {
		fmt.Fprintf(&b, "    - interface: eth%d\n      dhcp: false\n      addresses: [10.0.%d.1/24]\n      routes: [{network: 0.0.0.0/0, gateway: 10.0.%d.254}]\n", i, i, i)
	}

	b.WriteString("defaults: &defaults {role: worker, schematic: base}\nnodes:\n")

	for i := range 200 {
		fmt.Fprintf(&b, "  - <<: *defaults\n    name: n%d\n    network: *net\n", i)
	}

	if err := yamlpos.Check([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
}

func TestCheck_RefusesAliasesThatAddMoreThanTheDocumentWritesOut(t *testing.T) {
	// Below the ratio (the padding writes out 3 % of the nodes), over what aliases may add.
	doc := "bomb: " + hostile.AliasBomb(6) + "\npad: [" + strings.Repeat("1,", 7000) + "1]\n"

	var over *yamlpos.BudgetError
	if err := yamlpos.Check([]byte(doc)); !errors.As(err, &over) || !strings.Contains(over.Msg, "more than the") {
		t.Fatalf("Check = %v, want aliases adding more than the document writes out", err)
	}
}

func TestCheck_RefusesADocumentOverTheNodeBudget(t *testing.T) {
	doc := "[" + strings.Repeat("1,", yamlpos.MaxNodes) + "1]"

	if err := yamlpos.Check([]byte(doc)); err == nil {
		t.Fatal("a document of more than MaxNodes nodes was accepted")
	}
}

func TestCheck_SecondDocumentIsCheckedToo(t *testing.T) {
	doc := "a: 1\n---\nb: " + hostile.AliasBomb(7) + "\n"

	var over *yamlpos.BudgetError
	if err := yamlpos.Check([]byte(doc)); !errors.As(err, &over) || over.Line != 3 {
		t.Fatalf("Check = %v, want a *BudgetError at line 3", err)
	}
}

func TestParse_RefusesWhatCheckRefuses(t *testing.T) {
	doc := "machine:\n  kubelet:\n    extraConfig: " + hostile.AliasBomb(9) + "\n"

	_, err := yamlpos.Parse([]byte(doc))
	if p := yamlpos.Problems(err); len(p) != 1 || p[0].Line != 3 || !strings.Contains(p[0].Message, "YAML nodes") {
		t.Fatalf("Parse = %v (%+v), want the budget's problem at line 3", err, p)
	}
}

func FuzzCheck(f *testing.F) {
	f.Add([]byte("a: &a [1, 2]\nb: [*a, *a]\n"))
	f.Add([]byte(hostile.AliasBomb(4)))
	f.Add([]byte("a: &a {<<: *a}\n"))

	f.Fuzz(func(t *testing.T, data []byte) {
		// Checking is cheap whatever the input, and what it accepts stays cheap to decode.
		hostile.Bounded(t, func() {
			if yamlpos.Check(data) != nil {
				return
			}

			var v any
			_ = yaml.Unmarshal(data, &v)
		})
	})
}
