package migrate

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/config"
	"github.com/siderolabs/talos/pkg/machinery/config/generate"
	"github.com/siderolabs/talos/pkg/machinery/config/generate/secrets"
	"github.com/siderolabs/talos/pkg/machinery/config/machine"
)

// TestEffective_AnswersAsAWalkByReflection: Effective through accessors.go answers, path
// for path and value for value, what a walk calling every accessor by reflection answers,
// on the configs machinery generates for each contract and role.
func TestEffective_AnswersAsAWalkByReflection(t *testing.T) {
	t.Parallel()

	bundle, err := secrets.NewBundle(secrets.NewFixedClock(time.Unix(1_700_000_000, 0)), coreconfig.TalosVersionCurrent)
	if err != nil {
		t.Fatal(err)
	}

	for _, contract := range []*coreconfig.VersionContract{coreconfig.TalosVersion1_13, coreconfig.TalosVersionCurrent} {
		in, err := generate.NewInput("lab", "https://10.0.0.10:6443", "1.36.4",
			generate.WithSecretsBundle(bundle), generate.WithVersionContract(contract))
		if err != nil {
			t.Fatal(err)
		}

		for _, role := range []machine.Type{machine.TypeControlPlane, machine.TypeWorker} {
			t.Run(fmt.Sprintf("%s %s", contract, role), func(t *testing.T) {
				t.Parallel()

				provider, err := in.Config(role)
				if err != nil {
					t.Fatal(err)
				}

				got, want := Effective(provider), effectiveByReflection(provider)
				if !maps.Equal(got, want) {
					t.Fatalf("%d paths through accessors.go and %d by reflection differ", len(got), len(want))
				}

				// The certificates, the endpoint, the token, the network and more: a walk that
				// reads nothing would also agree.
				if len(got) < 30 {
					t.Fatalf("only %d paths: %v", len(got), slices.Sorted(maps.Keys(got)))
				}
			})
		}
	}
}

// effectiveByReflection is Effective as a walk that finds each interface's accessors by
// reflection (which a test may use: it is no part of the binary).
func effectiveByReflection(c config.Config) map[string]string {
	out := map[string]string{}
	v := reflect.ValueOf(&c).Elem()
	worker := c.Machine() != nil && c.Machine().Type() != machine.TypeControlPlane

	for i := range v.Type().NumMethod() {
		if name := v.Type().Method(i).Name; !worker || !controlPlaneOnly[name] {
			reflectAccessor(v, i, name, 0, out)
		}
	}

	return out
}

// reflectWalk is walk with each interface's accessors found by reflection.
func reflectWalk(v reflect.Value, path string, depth int, out map[string]string) {
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
			reflectWalk(v.Elem(), path, depth+1, out)

			return
		}

		for i := range v.Type().NumMethod() {
			reflectAccessor(v, i, join(path, v.Type().Method(i).Name), depth, out)
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			walk(v, path, depth, out)

			return
		}

		for i := range v.Len() {
			reflectWalk(v.Index(i), join(path, fmt.Sprint(i)), depth+1, out)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			reflectWalk(v.MapIndex(k), join(path, fmt.Sprint(k)), depth+1, out)
		}
	default:
		walk(v, path, depth, out) // a value with no interface below: walk reads it alike
	}
}

func reflectAccessor(v reflect.Value, i int, path string, depth int, out map[string]string) {
	m := v.Type().Method(i)
	if skipped[m.Name] || m.Type.NumIn() != 0 || m.Type.NumOut() == 0 {
		return
	}

	results, panicked := call(func() []reflect.Value { return v.Method(i).Call(nil) })
	if panicked != "" {
		put(out, path, "panic: "+panicked)

		return
	}

	for j, r := range results {
		name := path
		if j > 0 {
			name = join(name, fmt.Sprint(j))
		}

		reflectWalk(r, name, depth+1, out)
	}
}
