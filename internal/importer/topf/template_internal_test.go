package topf

import (
	"slices"
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
