package topf

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"text/template"
)

// patchContext is what a topf template sees, field for field as topf names it.
type patchContext struct {
	ClusterName       string
	ClusterEndpoint   string
	KubernetesVersion string
	TalosVersion      string
	SchematicID       string
	Data              map[string]any
	Node              *nodeContext
	PatchesDir        string
}

// nodeContext is topf's node as a template sees it.
type nodeContext struct {
	Host         string
	IP           *netip.Addr
	Role         string
	Data         map[string]any
	TalosVersion string
	SchematicID  string
	Factory      string
	Platform     string
	SecureBoot   bool
}

// renderer renders templates and remembers which environment variables they read.
type renderer struct {
	lookup func(string) (string, bool)
	// used are the variables read with a value, which the rendered files now hold.
	used map[string]bool
}

// render runs one template as topf does: text/template with missingkey=error and sprig's
// functions, of which the import knows those in funcs; a template calling another fails
// here, to be reported.
func (r *renderer) render(name string, text []byte, ctx *patchContext) ([]byte, error) {
	tmpl, err := template.New(name).Funcs(r.funcs()).Option("missingkey=error").Parse(string(text))
	if err != nil {
		return nil, fmt.Errorf("parse template: %w", err)
	}

	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, ctx); err != nil {
		return nil, fmt.Errorf("execute template: %w", err)
	}

	return buf.Bytes(), nil
}

// funcs are the sprig functions topf's templates use most, with sprig's behaviour.
func (r *renderer) funcs() template.FuncMap {
	return template.FuncMap{
		"env": func(name string) string {
			v, ok := "", false
			if r.lookup != nil {
				v, ok = r.lookup(name)
			}

			if ok && v != "" {
				r.used[name] = true
			}

			return v
		},
		"default": func(def any, given ...any) any {
			if len(given) == 0 || empty(given[0]) {
				return def
			}

			return given[0]
		},
		"empty":   empty,
		"quote":   func(s ...any) string { return joinEach(s, `"`, `"`, true) },
		"squote":  func(s ...any) string { return joinEach(s, "'", "'", false) },
		"upper":   strings.ToUpper,
		"lower":   strings.ToLower,
		"trim":    strings.TrimSpace,
		"replace": func(old, repl, s string) string { return strings.ReplaceAll(s, old, repl) },
		"indent":  indent,
		"nindent": func(n int, s string) string { return "\n" + indent(n, s) },
		"b64enc":  func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) },
		"b64dec": func(s string) string {
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return err.Error()
			}

			return string(b)
		},
		"toString": func(v any) string { return fmt.Sprint(v) },
		"trunc":    trunc,
		"hasKey": func(m map[string]any, k string) bool {
			_, ok := m[k]

			return ok
		},
	}
}

// trunc is sprig's: the first c bytes, or with c negative the last -c.
func trunc(c int, s string) string {
	switch {
	case c < 0 && len(s)+c > 0:
		return s[len(s)+c:]
	case c >= 0 && len(s) > c:
		return s[:c]
	default:
		return s
	}
}

func indent(n int, s string) string {
	pad := strings.Repeat(" ", n)

	return pad + strings.ReplaceAll(s, "\n", "\n"+pad)
}

func joinEach(vals []any, open, closing string, quoted bool) string {
	out := make([]string, 0, len(vals))

	for _, v := range vals {
		if v == nil {
			continue
		}

		if quoted {
			out = append(out, fmt.Sprintf("%q", fmt.Sprint(v)))
		} else {
			out = append(out, open+fmt.Sprint(v)+closing)
		}
	}

	return strings.Join(out, " ")
}

// empty is sprig's: the zero value of its type, or a nil.
func empty(v any) bool {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return true
	}

	switch rv.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return rv.Len() == 0
	case reflect.Bool:
		return !rv.Bool()
	case reflect.Complex64, reflect.Complex128:
		return rv.Complex() == 0
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return rv.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return rv.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return rv.IsNil()
	case reflect.Struct:
		return false
	default:
		return rv.IsZero()
	}
}

// usedVars are the variables read, sorted.
func (r *renderer) usedVars() []string {
	out := make([]string, 0, len(r.used))
	for k := range r.used {
		out = append(out, k)
	}

	slices.Sort(out)

	return out
}
