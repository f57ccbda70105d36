package migrate

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/generate"
	"github.com/siderolabs/talos/pkg/machinery/config/generate/secrets"
	"github.com/siderolabs/talos/pkg/machinery/config/machine"
)

// TestEffective_AnswersAsAWalkByReflection: Effective through accessors.go answers, path
// for path and value for value, what the same walk answers with each interface's
// accessors found by reflection, on the configs machinery generates for each contract and
// role.
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

				got, want := Effective(provider), effective(provider, accessorsByReflection)
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

// accessorsByReflection lists an interface's accessors by reflection, which a test may
// use: it is no part of the binary.
func accessorsByReflection(t reflect.Type) []accessorFunc {
	var out []accessorFunc

	for i := range t.NumMethod() {
		if m := t.Method(i); isAccessor(m.Name, m.Type) {
			out = append(out, accessorFunc{name: m.Name, call: func(v reflect.Value) []reflect.Value { return v.Method(i).Call(nil) }})
		}
	}

	return out
}
