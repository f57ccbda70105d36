package talhelper

import (
	"net/netip"
	"reflect"
	"testing"

	"github.com/siderolabs/talos/pkg/machinery/config/types/v1alpha1"
	"go.yaml.in/yaml/v4"
)

// nodeDecoded decodes itself from a YAML node, go-yaml's newer form.
type nodeDecoded struct{}

func (*nodeDecoded) UnmarshalYAML(*yaml.Node) error { return nil }

func TestReadsItself_EachFormOfSelfDecoding(t *testing.T) {
	tests := []struct {
		name string
		typ  reflect.Type
		want bool
	}{
		{"UnmarshalYAML(func(any) error), machinery's form", reflect.TypeFor[v1alpha1.Base64Bytes](), true},
		{"UnmarshalYAML(*yaml.Node)", reflect.TypeFor[nodeDecoded](), true},
		{"UnmarshalText", reflect.TypeFor[netip.Addr](), true},
		{"an interface", reflect.TypeFor[any](), true},
		{"a struct read field by field", reflect.TypeFor[v1alpha1.CNIConfig](), false},
		{"a map", reflect.TypeFor[map[string]string](), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := readsItself(tt.typ); got != tt.want {
				t.Fatalf("readsItself(%v) = %v, want %v", tt.typ, got, tt.want)
			}
		})
	}
}
