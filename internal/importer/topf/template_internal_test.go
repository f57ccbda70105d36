package topf

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
)

// TestRender_SprigsRepeatableFunctionsAsTopfHasThem: a template gets sprig's functions
// (the library itself), env and expandenv read the environment given, and the functions
// that differ from one render to the next are not there.
func TestRender_SprigsRepeatableFunctionsAsTopfHasThem(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
		used             []string
		fails            bool
	}{
		{"a list joined", `{{ list "a" "b" | join "," }}`, "a,b", nil, false},
		{"a dict looked up", `{{ get (dict "k" "v") "k" }}`, "v", nil, false},
		{"a semver compared", `{{ semverCompare ">=1.2" "1.3.0" }}`, "true", nil, false},
		{"env reads the given environment", `{{ env "A" }}`, "1", []string{"A"}, false},
		{"expandenv reads it too", `{{ "$A-${B}" | expandenv }}`, "1-", []string{"A"}, false},
		{"the clock is not there", `{{ now }}`, "", nil, true},
		{"randomness is not there", `{{ randInt 1 9 }}`, "", nil, true},
		{"a generated key is not there", `{{ genPrivateKey "rsa" }}`, "", nil, true},
		{"DNS is not there", `{{ getHostByName "example.org" }}`, "", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &renderer{lookup: func(k string) (string, bool) { return map[string]string{"A": "1"}[k], k == "A" }, used: map[string]bool{}}

			out, err := r.render("t", []byte(tc.text), &patchContext{})
			if tc.fails {
				if err == nil {
					t.Fatalf("want a failure, got %q", out)
				}

				return
			}

			if err != nil || string(out) != tc.want || !slices.Equal(r.usedVars(), tc.used) {
				t.Fatalf("got %q, %v, used %v; want %q, used %v", out, err, r.usedVars(), tc.want, tc.used)
			}
		})
	}
}

// TestRender_FieldsAndFunctionsNotMethods: a template reads the context's fields and prints
// a value as fmt does (an address as its text), but calls no method: talops' template engine
// has none, so that every exported method of the binary is not kept linked. A template that
// calls one fails, to be reported.
func TestRender_FieldsAndFunctionsNotMethods(t *testing.T) {
	ip := netip.MustParseAddr("10.0.0.7")
	ctx := &patchContext{ClusterName: "lab", Node: &nodeContext{Host: "w1", IP: &ip, Data: map[string]any{"rack": "r1"}}}

	for _, tc := range []struct {
		name, text, want, fails string
	}{
		{"fields", `{{ .ClusterName }}/{{ .Node.Host }}`, "lab/w1", ""},
		{"a map's key", `{{ .Node.Data.rack }}`, "r1", ""},
		{"an address printed as its text", `{{ .Node.IP }}`, "10.0.0.7", ""},
		{"an address through a function", `{{ printf "%s" .Node.IP | upper }}`, "10.0.0.7", ""},
		{"a method", `{{ .Node.IP.Is4 }}`, "", "can't evaluate field Is4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &renderer{used: map[string]bool{}}

			out, err := r.render("t", []byte(tc.text), ctx)
			if tc.fails != "" {
				if err == nil || !strings.Contains(err.Error(), tc.fails) {
					t.Fatalf("want a failure saying %q, got %q, %v", tc.fails, out, err)
				}

				return
			}

			if err != nil || string(out) != tc.want {
				t.Fatalf("got %q, %v; want %q", out, err, tc.want)
			}
		})
	}
}
