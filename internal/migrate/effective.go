package migrate

import (
	"encoding"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/siderolabs/talos/pkg/machinery/config/config"
	"github.com/siderolabs/talos/pkg/machinery/config/machine"
)

// Layout is how a node's config before compares with its config after, whatever layout
// each is written in.
type Layout struct {
	// Differences name what the node would run differently: the settings Compare names or,
	// when it names none, every accessor of machinery's config.Config that answers
	// differently, by path (K8sSchedulerConfig.ExtraArgs). None: layout only.
	Differences []string
	// Inherent says what the new layout's documents do by themselves, which none of their
	// fields can keep as the v1alpha1 layout had it.
	Inherent []string
}

// LayoutOnly says whether the node runs every setting as before.
func (l Layout) LayoutOnly() bool { return len(l.Differences) == 0 }

// CompareLayouts compares what a node runs with before and with after. Machinery answers
// its accessors the same for a v1alpha1 field and the document that replaced it, so every
// accessor is read (Effective) and compared; the few that answer per layout are proved by
// Settings instead (layoutPaths), the kernel arguments the node boots with by what its
// schematic and machine.install give together (bootKernelArgs), and the few the new
// documents fix by themselves are named (inherent).
func CompareLayouts(beforeNode, afterNode Node) Layout {
	var l Layout

	before, after := beforeNode.Config, afterNode.Config

	for _, d := range Compare(before, after) {
		l.Differences = append(l.Differences, d.Setting)
	}

	if canonical(bootKernelArgs(beforeNode)) != canonical(bootKernelArgs(afterNode)) {
		l.Differences = append(l.Differences, "install.extraKernelArgs")
	}

	// A setting Compare names is said by its name; the accessors behind it would say it
	// again, less clearly.
	if len(l.Differences) > 0 {
		return l
	}

	b, a := Effective(before), Effective(after)
	keys := maps.Clone(b)
	maps.Copy(keys, a)

	accepted := map[string]bool{}

	for _, path := range slices.Sorted(maps.Keys(keys)) {
		if b[path] == a[path] || covered(path) || autoHostnameUnused(path, before, after) {
			continue
		}

		i := slices.IndexFunc(inherent, func(e inherentEffect) bool { return under(path, e.path) })
		if i >= 0 && inherent[i].holds(before, after) {
			accepted[inherent[i].says] = true

			continue
		}

		l.Differences = append(l.Differences, path)
	}

	l.Inherent = slices.Sorted(maps.Keys(accepted))

	return l
}

// Effective is everything a node's config answers through machinery's config.Config, one
// entry per accessor path (K8sKubeletConfig.ExtraArgs, Machine.Network.Hostname), each
// value written canonically. A value that is zero (false, "", an empty list, no document)
// has no entry: a document that is not there and one that sets nothing answer alike. The
// values hold secrets: only paths leave this package.
func Effective(c config.Config) map[string]string {
	return effective(c, func(t reflect.Type) []accessorFunc { return accessors()[t] })
}

// effective is Effective with each interface's accessors listed by accessorsOf.
func effective(c config.Config, accessorsOf func(reflect.Type) []accessorFunc) map[string]string {
	w := walker{out: map[string]string{}, accessorsOf: accessorsOf}
	if c == nil {
		return w.out
	}

	v := reflect.ValueOf(&c).Elem()
	worker := c.Machine() != nil && c.Machine().Type() != machine.TypeControlPlane

	for _, a := range accessorsOf(v.Type()) {
		if worker && controlPlaneOnly[a.name] {
			continue
		}

		w.read(a, v, a.name, 0)
	}

	return w.out
}

// walker writes what a config answers into out, reading each interface's accessors.
type walker struct {
	out         map[string]string
	accessorsOf func(reflect.Type) []accessorFunc
}

// accessorFunc is one accessor of an interface: its name, and a call of it on a value of
// that interface answering its results as their declared types. The interfaces' methods
// are listed in accessors.go, generated from machinery's interfaces by a test, rather than
// looked up by reflection: a method called by an index or name the compiler cannot see
// keeps every exported method of the binary linked (some 12 MB of it).
type accessorFunc struct {
	name string
	call func(v reflect.Value) []reflect.Value
}

// accessors are accessorTable's, made when first read: most commands read none.
var accessors = sync.OnceValue(accessorTable)

// one is the call of an accessor that answers one value.
func one[I, R any](m func(I) R) func(reflect.Value) []reflect.Value {
	return func(v reflect.Value) []reflect.Value {
		r := m(v.Interface().(I)) //nolint:forcetypeassert // v is an I: accessors holds it under I's type

		return []reflect.Value{reflect.ValueOf(&r).Elem()}
	}
}

// two is the call of an accessor that answers two values.
func two[I, R0, R1 any](m func(I) (R0, R1)) func(reflect.Value) []reflect.Value {
	return func(v reflect.Value) []reflect.Value {
		r0, r1 := m(v.Interface().(I)) //nolint:forcetypeassert // as in one

		return []reflect.Value{reflect.ValueOf(&r0).Elem(), reflect.ValueOf(&r1).Elem()}
	}
}

// controlPlaneOnly are the accessors of the documents machinery refuses on a worker
// (those whose type has ControlplaneOnlyDocument, machinery v1.14.1): a worker runs none of
// them, whatever a v1alpha1 config answers for them.
var controlPlaneOnly = map[string]bool{
	"K8sAPIServerConfig": true, "K8sAggregatorCAConfig": true, "K8sAdmissionControlPluginConfigs": true,
	"K8sAuditPolicyConfig": true, "K8sAuthenticationConfig": true, "K8sAuthorizerConfigs": true,
	"K8sEtcdEncryptionConfig": true, "K8sControllerManagerConfig": true, "K8sSchedulerConfig": true,
	"K8sProxyConfig": true, "K8sFlannelCNIConfig": true, "K8sCoreDNSConfig": true,
	"K8sServiceAccountConfig": true, "K8sTalosAPIAccessConfig": true,
}

// maxDepth bounds the walk: an accessor that hands back the config it hangs off (a v1alpha1
// config answering as its own hostname config) is read once per level, not forever.
const maxDepth = 8

// skipped are methods that answer nothing a node runs: a document's own plumbing.
var skipped = map[string]bool{
	"Clone": true, "DeepCopy": true, "Redact": true, "Validate": true, "Kind": true, "APIVersion": true,
	"V1Alpha1ConflictValidate": true, "RuntimeValidate": true, "Documents": true,
}

// walk writes v, read as its static type, into out under path.
func (w walker) walk(v reflect.Value, path string, depth int) {
	out := w.out

	if depth > maxDepth || !v.IsValid() {
		return
	}

	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return
		}

		if s, ok := text(v); ok && (v.Kind() == reflect.Pointer || v.NumMethod() == 0) {
			put(out, path, s)

			return
		}

		if v.Kind() == reflect.Pointer {
			w.walk(v.Elem(), path, depth+1)

			return
		}

		for _, a := range w.accessorsOf(v.Type()) {
			w.read(a, v, join(path, a.name), depth)
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			put(out, path, canonical(v.Interface()))

			return
		}

		for i := range v.Len() {
			w.walk(v.Index(i), join(path, fmt.Sprint(i)), depth+1)
		}
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })

		for _, k := range keys {
			w.walk(v.MapIndex(k), join(path, fmt.Sprint(k)), depth+1)
		}
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		// Not a setting.
	default:
		if s, ok := text(v); ok {
			put(out, path, s)

			return
		}

		put(out, path, canonical(v.Interface()))
	}
}

// read calls the accessor a on v and walks what it answers under path.
func (w walker) read(a accessorFunc, v reflect.Value, path string, depth int) {
	results, panicked := call(func() []reflect.Value { return a.call(v) })
	if panicked != "" {
		put(w.out, path, "panic: "+panicked)

		return
	}

	for j, r := range results {
		name := path
		if j > 0 {
			name = join(name, fmt.Sprint(j))
		}

		w.walk(r, name, depth+1)
	}
}

// call calls an accessor; one that panics (a nil document behind a non-nil interface)
// answers its panic, the same on both sides of a comparison.
func call(m func() []reflect.Value) (results []reflect.Value, panicked string) {
	defer func() {
		if r := recover(); r != nil {
			results, panicked = nil, fmt.Sprint(r)
		}
	}()

	return m(), ""
}

// text is a value that writes itself as text (an error, a CEL expression, an address).
func text(v reflect.Value) (string, bool) {
	if !v.CanInterface() {
		return "", false
	}

	switch x := v.Interface().(type) {
	case error:
		return "error: " + x.Error(), true
	case encoding.TextMarshaler:
		if b, err := x.MarshalText(); err == nil {
			return string(b), true
		}
	case json.Marshaler:
		if b, err := x.MarshalJSON(); err == nil {
			return string(b), true
		}
	case fmt.Stringer:
		return x.String(), true
	}

	return "", false
}

// put records a value that is not zero.
func put(out map[string]string, path, s string) {
	switch s {
	case "", `""`, "false", "0", "null", "{}", "[]", "0s":
		return
	}

	out[path] = s
}

func join(path, name string) string {
	if path == "" {
		return name
	}

	return path + "." + name
}

func under(path, prefix string) bool {
	return path == prefix || strings.HasPrefix(path, prefix+".")
}

// layoutPaths are the accessors that answer differently in the two layouts for a node
// that runs the same: Settings reads each its own way (the legacy install, the API server's
// legacy flags and the authorizers v1alpha1 added, the etcd keys the new contract writes
// out, the old contract's defaults, the v1alpha1 discovery the new layout answers through
// its documents), so Compare is their proof.
var layoutPaths = []string{
	"Machine.Install",
	"Machine.Network.Hostname", "Machine.Network.Resolvers", "Machine.Network.SearchDomains", "Machine.Network.DisableSearchDomain",
	"Cluster.SecretboxEncryptionSecret", "Cluster.AESCBCEncryptionSecret", "Cluster.Discovery", "DiscoveryServiceConfigs",
	"K8sAPIServerConfig.ExtraArgs", "K8sAPIServerConfig.UseAuthenticationConfig", "K8sAPIServerConfig.CertSANs",
	"K8sAPIServerConfig.InjectDefaultAuthorizers",
	"K8sAuthenticationConfig", "K8sAuthorizerConfigs", "K8sEtcdEncryptionConfig",
	"UnattendedInstallConfig", "SecurityProfileConfig", "FilesystemTrimConfig",
}

// covered says whether Settings proves the accessor at path.
func covered(path string) bool {
	return slices.ContainsFunc(layoutPaths, func(p string) bool { return under(path, p) })
}

// autoHostnameUnused says a difference of the automatic hostname's kind changes nothing:
// both configs name the same hostname themselves, which Talos takes over any automatic
// one (the lowest of its sources), and Settings compares that name. HostnameConfig
// refuses an automatic kind beside a name, so a v1alpha1 stableHostname becomes "off".
func autoHostnameUnused(path string, before, after config.Config) bool {
	if path != "NetworkHostnameConfig.AutoHostname" {
		return false
	}

	b, a := before.NetworkHostnameConfig(), after.NetworkHostnameConfig()

	return b != nil && a != nil && b.Hostname() != "" && b.Hostname() == a.Hostname()
}
