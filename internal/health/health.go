// Package health compiles and evaluates the health checks of talops.yaml: a CEL expression
// over a Kubernetes object, as Kubernetes' own validation rules are written. It is pure:
// the objects come in as decoded JSON, and reading them from the cluster is the adapter's.
//
// The CEL engine is cel-go (github.com/google/cel-go, the module named cel.dev/cel-go from
// v0.32 on) at the version Talos machinery links, so the binary carries one CEL engine.
package health

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// costLimit bounds one evaluation: an expression over a large object (every Longhorn
// volume's list of replicas) stays cheap, a runaway comprehension stops.
const costLimit = 1_000_000

// env declares the one variable checks see: object, the Kubernetes object as JSON.
var env = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewEnv(cel.Variable("object", cel.DynType))
})

// Expr is a compiled health expression.
type Expr struct {
	text string
	prg  cel.Program
	// fields are the field paths the expression reads (object.status.phase), by the
	// expression ID whose value is that field, for a report of the values it saw.
	fields []field
}

type field struct {
	id   int64
	path string
}

// Compile checks an expression and prepares it: it must be a CEL expression over object
// that gives a bool. The error is one line, with the column of the problem.
func Compile(text string) (*Expr, error) {
	e, err := env()
	if err != nil {
		return nil, fmt.Errorf("CEL environment: %w", err)
	}

	if strings.TrimSpace(text) == "" {
		return nil, errors.New("is empty: write a CEL expression over object that is true when healthy")
	}

	checked, iss := e.Compile(text)
	if iss != nil && iss.Err() != nil {
		return nil, errors.New(oneLine(iss.Err().Error()))
	}

	if !checked.OutputType().IsExactType(types.BoolType) && !checked.OutputType().IsExactType(types.DynType) {
		return nil, fmt.Errorf("gives a %s, not a bool: the check passes when the expression is true", checked.OutputType())
	}

	prg, err := e.Program(checked, cel.EvalOptions(cel.OptTrackState), cel.CostLimit(costLimit))
	if err != nil {
		return nil, errors.New(oneLine(err.Error()))
	}

	return &Expr{text: text, prg: prg, fields: fieldsOf(checked.NativeRep())}, nil
}

// String is the expression as written.
func (x *Expr) String() string { return x.text }

// Verdict is an expression's answer for one object.
type Verdict struct {
	OK bool
	// Seen lists the fields the expression read and their values, for a report of why a
	// check failed: object.status.ceph.health = "HEALTH_WARN".
	Seen []string
	// Err is an evaluation that gave no bool (a missing field, a type mismatch): the
	// check fails with it.
	Err error
}

// Eval evaluates the expression over one object (decoded JSON).
func (x *Expr) Eval(object map[string]any) Verdict {
	val, details, err := x.prg.Eval(map[string]any{"object": object})

	v := Verdict{Seen: x.seen(details)}

	switch {
	case err != nil:
		v.Err = errors.New(oneLine(err.Error()))
	case val.Type() != types.BoolType:
		v.Err = fmt.Errorf("gave %s, not a bool", val.Type())
	default:
		v.OK = val.Value() == true
	}

	return v
}

// seen reads the values the fields of the expression had in one evaluation.
func (x *Expr) seen(details *cel.EvalDetails) []string {
	if details == nil || details.State() == nil {
		return nil
	}

	var out []string

	for _, f := range x.fields {
		v, ok := details.State().Value(f.id)
		if !ok || types.IsUnknownOrError(v) {
			continue
		}

		line := f.path + " = " + show(v)
		if !slices.Contains(out, line) {
			out = append(out, line)
		}
	}

	return out
}

// fieldsOf finds the outermost field selections of the expression (object.status.phase,
// not also object.status): the values a reader of a failed check wants to see.
func fieldsOf(a *ast.AST) []field {
	var out []field

	for _, nav := range ast.MatchDescendants(ast.NavigateAST(a), ast.KindMatcher(ast.SelectKind)) {
		if parent, ok := nav.Parent(); ok && parent.Kind() == ast.SelectKind {
			continue
		}

		if nav.AsSelect().IsTestOnly() {
			continue
		}

		if path, ok := selectPath(nav); ok {
			out = append(out, field{id: nav.ID(), path: path})
		}
	}

	return out
}

// selectPath spells a chain of selections on object (object.status.phase); a selection
// on a comprehension's variable (c.status in all(c, …)) has no one value to show.
func selectPath(e ast.Expr) (string, bool) {
	switch e.Kind() {
	case ast.IdentKind:
		return e.AsIdent(), e.AsIdent() == "object"
	case ast.SelectKind:
		s := e.AsSelect()

		base, ok := selectPath(s.Operand())
		if !ok {
			return "", false
		}

		return base + "." + s.FieldName(), true
	default:
		return "", false
	}
}

// show prints a value short: strings quoted, lists and maps by their size.
func show(v ref.Val) string {
	switch n := v.Value().(type) {
	case string:
		if len(n) > 80 {
			n = n[:80] + "…"
		}

		return strconv.Quote(n)
	case []any:
		return fmt.Sprintf("a list of %d", len(n))
	case map[string]any:
		return fmt.Sprintf("a map of %d keys", len(n))
	default:
		s := fmt.Sprint(n)
		if len(s) > 80 {
			s = s[:80] + "…"
		}

		return s
	}
}

// oneLine joins CEL's multi-line messages (the source line and a caret) into one line.
func oneLine(s string) string {
	s = strings.TrimPrefix(s, "ERROR: <input>:")

	lines := strings.Split(s, "\n")

	return strings.TrimSpace(lines[0])
}

// Check is one health check of talops.yaml: every object it selects must satisfy Expr
// within Timeout.
type Check struct {
	Name       string
	APIVersion string
	Kind       string
	// Namespace of namespaced objects ("": cluster-scoped, or every namespace).
	Namespace string
	// ObjectName picks one object, Selector (a label selector) several; neither: all.
	ObjectName string
	Selector   string
	Expr       *Expr
	Timeout    time.Duration
}

// Objects says which objects the check reads: "CephCluster rook-ceph/rook-ceph",
// "Volume in longhorn-system with app=x", "every Node".
func (c Check) Objects() string {
	switch {
	case c.ObjectName != "" && c.Namespace != "":
		return c.Kind + " " + c.Namespace + "/" + c.ObjectName
	case c.ObjectName != "":
		return c.Kind + " " + c.ObjectName
	}

	s := "every " + c.Kind
	if c.Namespace != "" {
		s += " in " + c.Namespace
	}

	if c.Selector != "" {
		s += " with " + c.Selector
	}

	return s
}

// Object is one Kubernetes object a check read: its name (namespace/name for namespaced
// objects) and its content as decoded JSON.
type Object struct {
	Name    string
	Content map[string]any
}
