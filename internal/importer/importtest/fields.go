package importtest

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Field is one field of a tool's configuration reference: its YAML path (nodes[].hostname)
// and its Go type as the source writes it.
type Field struct {
	Path, Type string
}

// ReferenceFields lists every YAML path below the struct type root, declared in the Go
// source files given (a tool's configuration types, copied from its module), in declaration
// order. A field of one of the files' own struct types is walked into the first time the
// type is met, so its fields are listed once, where the type first appears; a later field of
// that type is listed alone, as is a field of another package's type. inline gives the
// fields of another package's types a struct embeds with `yaml:",inline"`, which the files
// do not hold: they are read from the real type by reflection.
func ReferenceFields(srcs [][]byte, root string, inline map[string]reflect.Type) ([]Field, error) {
	types := map[string]ast.Expr{}
	fset := token.NewFileSet()

	for i, src := range srcs {
		f, err := parser.ParseFile(fset, "reference"+strconv.Itoa(i)+".go", src, 0)
		if err != nil {
			return nil, fmt.Errorf("parse the reference: %w", err)
		}

		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}

			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				types[ts.Name.Name] = ts.Type
			}
		}
	}

	w := &walker{types: types, inline: inline, seen: map[string]bool{}}
	if _, ok := types[root]; !ok {
		return nil, fmt.Errorf("no type %s in the reference", root)
	}

	if err := w.walk(root, ""); err != nil {
		return nil, err
	}

	return w.out, nil
}

type walker struct {
	types  map[string]ast.Expr
	inline map[string]reflect.Type
	seen   map[string]bool
	out    []Field
}

// walk lists the fields of the local struct type name below prefix.
func (w *walker) walk(name, prefix string) error {
	w.seen[name] = true

	st, ok := w.types[name].(*ast.StructType)
	if !ok {
		return fmt.Errorf("%s is not a struct", name)
	}

	for _, f := range st.Fields.List {
		key, isInline := yamlKey(f.Tag)
		typ := exprString(f.Type)

		switch {
		case key == "-":
			continue
		case isInline && w.types[typ] != nil:
			if err := w.walk(typ, prefix); err != nil {
				return err
			}

			continue
		case isInline:
			t, ok := w.inline[typ]
			if !ok {
				return fmt.Errorf("%s embeds %s inline: name its real type", name, typ)
			}

			w.reflectFields(t, prefix)

			continue
		case key == "":
			if len(f.Names) == 0 {
				return fmt.Errorf("%s embeds %s without a yaml tag", name, typ)
			}

			key = strings.ToLower(f.Names[0].Name)
		}

		path, elem := prefix+key, w.local(f.Type)
		if elem.list {
			path += "[]"
		}

		w.out = append(w.out, Field{Path: path, Type: typ})

		if elem.name != "" && !w.seen[elem.name] {
			if err := w.walk(elem.name, path+"."); err != nil {
				return err
			}
		}
	}

	return nil
}

// reflectFields lists the yaml keys of another package's struct type.
func (w *walker) reflectFields(t reflect.Type, prefix string) {
	for i := range t.NumField() {
		f := t.Field(i)

		key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if key == "-" || !f.IsExported() {
			continue
		}

		w.out = append(w.out, Field{Path: prefix + key, Type: f.Type.String()})
	}
}

// elem is the local struct type a field's type leads to, and whether through a list.
type elem struct {
	name string
	list bool
}

// local follows pointers, slices and local named types to a local struct type.
func (w *walker) local(e ast.Expr) elem {
	var out elem

	for range 8 {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.ArrayType:
			out.list, e = true, t.Elt
		case *ast.Ident:
			def, ok := w.types[t.Name]
			if !ok {
				return elem{list: out.list}
			}

			if _, isStruct := def.(*ast.StructType); isStruct {
				out.name = t.Name

				return out
			}

			e = def
		default:
			return elem{list: out.list}
		}
	}

	return out
}

func yamlKey(tag *ast.BasicLit) (string, bool) {
	if tag == nil {
		return "", false
	}

	raw, err := strconv.Unquote(tag.Value)
	if err != nil {
		return "", false
	}

	key, opts, _ := strings.Cut(reflect.StructTag(raw).Get("yaml"), ",")

	return key, strings.Contains(","+opts+",", ",inline,")
}

func exprString(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.SelectorExpr:
		return exprString(t.X) + "." + t.Sel.Name
	case *ast.StarExpr:
		return "*" + exprString(t.X)
	case *ast.ArrayType:
		return "[]" + exprString(t.Elt)
	case *ast.MapType:
		return "map[" + exprString(t.Key) + "]" + exprString(t.Value)
	default:
		return fmt.Sprintf("%T", e)
	}
}

// Row is one row of a field table: a field's path, what the import does with it
// (Statuses) and how, at its line of the document.
type Row struct {
	Path, Status, How string
	Line              int
}

// Statuses are what a field table may say of a field.
var Statuses = []string{"imported", "imported with a finding", "refused"}

var rowPattern = regexp.MustCompile("^\\| `([^`]+)` \\| ([^|]+?) \\| (.*) \\|$")

// FieldTable reads the field table under a heading of a markdown document: the rows
// "| `path` | status | how |" up to the next heading.
func FieldTable(doc []byte, heading string) ([]Row, error) {
	var (
		out []Row
		in  bool
	)

	sc := bufio.NewScanner(bytes.NewReader(doc))

	for line := 1; sc.Scan(); line++ {
		text := sc.Text()

		if strings.HasPrefix(text, "#") {
			if in {
				break
			}

			in = strings.TrimSpace(strings.TrimLeft(text, "#")) == heading

			continue
		}

		if m := rowPattern.FindStringSubmatch(text); in && m != nil {
			out = append(out, Row{Path: m[1], Status: strings.TrimSpace(m[2]), How: strings.TrimSpace(m[3]), Line: line})
		}
	}

	if len(out) == 0 {
		return nil, fmt.Errorf("no field table under %q", heading)
	}

	return out, sc.Err()
}

// Errorer is the part of testing.TB CheckFieldTable reports through.
type Errorer interface {
	Helper()
	Errorf(format string, args ...any)
}

// CheckFieldTable reports each field the table under heading of the document at file does
// not name, each row naming no field, and each row without a status of Statuses or a how;
// it returns the rows by path.
func CheckFieldTable(t Errorer, file string, doc []byte, heading, tool string, fields []Field) map[string]Row {
	t.Helper()

	rows, err := FieldTable(doc, heading)
	if err != nil {
		t.Errorf("%s: %v", file, err)

		return nil
	}

	byPath := map[string]Row{}
	known := map[string]bool{}

	for _, f := range fields {
		known[f.Path] = true
	}

	for _, r := range rows {
		if !known[r.Path] {
			t.Errorf("%s:%d: %s is no field of %s's config", file, r.Line, r.Path, tool)
		}

		if !slices.Contains(Statuses, r.Status) || r.How == "" {
			t.Errorf("%s:%d: %s says %q: a row says one of %v, and how", file, r.Line, r.Path, r.Status, Statuses)
		}

		byPath[r.Path] = r
	}

	for _, f := range fields {
		if _, ok := byPath[f.Path]; !ok {
			t.Errorf("%s does not name %s's %s", file, tool, f.Path)
		}
	}

	return byPath
}
