package sops

import (
	"math"
	"reflect"
	"testing"
	"time"

	"go.yaml.in/yaml/v4"
)

// TestScalarValue_ResolvesLikeSops pins the types sops (through
// go.yaml.in/yaml/v3) gives unencrypted scalars, since the MAC covers their
// text as sops renders it from those types.
func TestScalarValue_ResolvesLikeSops(t *testing.T) {
	tests := []struct {
		yaml string
		want any
	}{
		{"plain words", "plain words"},
		{"'quoted'", "quoted"},
		{`"42"`, "42"},
		{"42", 42},
		{"-17", -17},
		{"+5", 5},
		{"1_000", 1000},
		{"0x1F", 31},
		{"0o17", 15},
		{"0777", 511},
		{"0b101", 5},
		{"-0b101", -5},
		{"18446744073709551615", uint64(math.MaxUint64)},
		{"1.5", 1.5},
		{"1e3", 1000.0},
		{".5", 0.5},
		{".inf", math.Inf(1)},
		{"-.Inf", math.Inf(-1)},
		{"true", true},
		{"False", false},
		{"yes", "yes"},
		{"on", "on"},
		{"~", nil},
		{"null", nil},
		{"", nil},
		{"2024-01-02", time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)},
		{"2024-01-02T03:04:05Z", time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)},
		{"2024-01-02 03:04:05", time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)},
		{`"2024-01-02"`, "2024-01-02"},
		{"10.5.0.2", "10.5.0.2"},
		{"2001:db8::10", "2001:db8::10"},
		{"1:20", "1:20"},
		{"!!str 42", "42"},
		{"!!float 3", 3.0},
		{"!!int '7'", 7},
		{"!!binary aGVsbG8=", "hello"},
		{"!custom 5", "5"},
		{"! 5", 5},
		{"<<", "<<"},
	}
	for _, tt := range tests {
		t.Run(tt.yaml, func(t *testing.T) {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte("v: "+tt.yaml+"\n"), &doc); err != nil {
				t.Fatal(err)
			}
			got, err := scalarValue(lookup(doc.Content[0], "v"))
			if err != nil {
				t.Fatalf("scalarValue: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v (%T), want %#v (%T)", got, got, tt.want, tt.want)
			}
		})
	}
}

func TestScalarValue_RefusesValueThatContradictsItsTag(t *testing.T) {
	for _, in := range []string{"!!int abc", "!!bool 1", "!!binary not*base64"} {
		t.Run(in, func(t *testing.T) {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte("v: "+in+"\n"), &doc); err != nil {
				t.Fatal(err)
			}
			if _, err := scalarValue(lookup(doc.Content[0], "v")); err == nil {
				t.Errorf("no error for %q", in)
			}
		})
	}
}
