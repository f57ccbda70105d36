package topf

import (
	"bytes"
	"fmt"
	"net/netip"
	"os"
	"slices"

	template "github.com/DataDog/datadog-agent/pkg/template/text"
	"github.com/Masterminds/sprig/v3"
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

// render runs one template as topf does: Go's template language with missingkey=error and
// sprig's functions, those that give the same result on every render; a template calling
// another (the clock, randomness, DNS) fails here, to be reported. The engine is
// text/template without method calls (DataDog's copy of it): a method looked up by a name
// only known at run time keeps every exported method of the binary linked (some 12 MB). A
// template reads fields and map keys and calls functions; one calling a method of a value
// (.Node.IP.Is4) fails, to be reported.
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

// impure are the sprig functions its hermetic map keeps although they differ from one
// render to the next (the clock, random values, keys and salts): an import renders once,
// so what it wrote would be one render's values, not the template.
var impure = []string{
	"ago", "randInt", "shuffle", "bcrypt", "htpasswd", "encryptAES", "genPrivateKey", "genCA", "genCAWithKey",
	"genSelfSignedCert", "genSelfSignedCertWithKey", "genSignedCert", "genSignedCertWithKey",
}

// funcs are sprig's repeatable functions (the library's hermetic map, as topf uses sprig),
// with env and expandenv reading the environment the import is given.
func (r *renderer) funcs() template.FuncMap {
	fm := sprig.HermeticTxtFuncMap()
	for _, name := range impure {
		delete(fm, name)
	}

	env := func(name string) string {
		v, ok := "", false
		if r.lookup != nil {
			v, ok = r.lookup(name)
		}

		if ok && v != "" {
			r.used[name] = true
		}

		return v
	}

	fm["env"] = env
	fm["expandenv"] = func(s string) string { return os.Expand(s, env) }

	return fm
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
