package sops

import (
	"flag"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// fixtures are the files the real sops CLI encrypted (see testdata/README.md).
var fixtures = []struct {
	name      string // file under testdata/encrypted and testdata/golden
	plaintext string // file under testdata/plain
}{
	{"bundle.yaml", "bundle.yaml"},
	{"bundle.encrypted-regex.yaml", "bundle.yaml"},
	{"bundle.encrypted-suffix.yaml", "bundle.yaml"},
	{"bundle.unencrypted-regex.yaml", "bundle.yaml"},
	{"bundle.two-recipients.yaml", "bundle.yaml"},
	{"suffix.unencrypted-suffix.yaml", "suffix.yaml"},
	{"suffix.mac-only-encrypted.yaml", "suffix.yaml"},
	{"types.yaml", "types.yaml"},
	{"multidoc.yaml", "multidoc.yaml"},
	{"comments.encrypted-comment-regex.yaml", "comments.yaml"},
	{"comments.unencrypted-comment-regex.yaml", "comments.yaml"},
	{"unencrypted-types.yaml", "unencrypted-types.yaml"},
	{"unencrypted-types.respelled.yaml", "unencrypted-types.yaml"},
}

func TestDecrypt_SopsFixturesMatchTheirPlaintext(t *testing.T) {
	ids := identitiesFrom(t, keyFile1)
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			got, err := Decrypt(readFixture(t, "encrypted/"+f.name), ids)
			if err != nil {
				t.Fatalf("Decrypt: %v", err)
			}
			plain := readFixture(t, "plain/"+f.plaintext)
			assertDeepEqual(t, parseAll(t, got), parseAll(t, plain))
			if g, w := keyOrder(t, got), keyOrder(t, plain); !slices.Equal(g, w) {
				t.Errorf("key order differs:\n got: %v\nwant: %v", g, w)
			}
		})
	}
}

func TestDecrypt_EitherOfTwoRecipientsDecrypts(t *testing.T) {
	data := readFixture(t, "encrypted/bundle.two-recipients.yaml")
	want := parseAll(t, readFixture(t, "plain/bundle.yaml"))
	for _, keyFile := range []string{keyFile1, keyFile2} {
		t.Run(filepath.Base(keyFile), func(t *testing.T) {
			got, err := Decrypt(data, identitiesFrom(t, keyFile))
			if err != nil {
				t.Fatalf("Decrypt: %v", err)
			}
			assertDeepEqual(t, parseAll(t, got), want)
		})
	}
}

func TestDecrypt_MatchesGolden(t *testing.T) {
	ids := identitiesFrom(t, keyFile1)
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			got, err := Decrypt(readFixture(t, "encrypted/"+f.name), ids)
			if err != nil {
				t.Fatalf("Decrypt: %v", err)
			}
			golden := filepath.Join("testdata", "golden", f.name)
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if string(got) != string(want) {
				t.Errorf("output differs from %s (run with -update and review the diff):\n%s", golden, got)
			}
		})
	}
}

func TestDecrypt_KeepsValueTypes(t *testing.T) {
	got, err := Decrypt(readFixture(t, "encrypted/types.yaml"), identitiesFrom(t, keyFile1))
	if err != nil {
		t.Fatalf("Decrypt: %v", err)
	}
	doc := parseAll(t, got)[0].(map[string]any)
	numbers := doc["numbers"].(map[string]any)
	strs := doc["strings"].(map[string]any)
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"int stays int", numbers["answer"], 42},
		{"hex int decodes to its value", numbers["hex"], 31},
		{"int beyond float precision stays exact", numbers["huge"], 9007199254740993},
		{"whole float stays float", numbers["whole_float"], 3.0},
		{"exponent float stays float", numbers["exponent"], 1000.0},
		{"fraction stays float", numbers["ratio"], 1.5},
		{"quoted number stays string", strs["quoted_number"], "123"},
		{"quoted bool stays string", strs["quoted_bool"], "true"},
		{"yes stays string", strs["yes_word"], "yes"},
		{"empty string stays empty string", strs["empty"], ""},
		{"folded block keeps its newline", strs["folded"], "folded text on two lines\n"},
		{"kept trailing newlines survive", strs["trailing_newlines"], "keep\n\n"},
		{"bool stays bool", doc["enabled"], true},
		{"null stays null", doc["nothing"], nil},
		{"date becomes a timestamp", doc["date"], time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %#v (%T), want %#v (%T)", tt.got, tt.got, tt.want, tt.want)
			}
		})
	}
}

func TestFormatFloat_ReadsBackAsFloat(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{3, "3.0"},
		{1000, "1000.0"},
		{1.5, "1.5"},
		{-0.25, "-0.25"},
		{1e21, "1e+21"},
		{math.Inf(1), ".inf"},
		{math.Inf(-1), "-.inf"},
		{math.NaN(), ".nan"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := formatFloat(tt.in); got != tt.want {
				t.Errorf("formatFloat(%v) = %q, want %q", tt.in, got, tt.want)
			}
			if tag, _ := resolvePlain(tt.want, ""); tag != tagFloat {
				t.Errorf("%q resolves as %s, want %s", tt.want, tag, tagFloat)
			}
		})
	}
}
