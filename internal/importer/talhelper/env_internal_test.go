package talhelper

import (
	"slices"
	"testing"
)

func TestSubstitute_AsTalhelpersEnvsubst(t *testing.T) {
	env := map[string]string{"A": "1", "LONG_NAME": "two"}
	lookup := func(k string) (string, bool) {
		v, ok := env[k]

		return v, ok
	}

	for _, tc := range []struct {
		name, in, want string
		used, unset    []string
	}{
		{"braces", "x${A}y", "x1y", []string{"A"}, nil},
		{"bare name", "$LONG_NAME-z", "two-z", []string{"LONG_NAME"}, nil},
		{"a doubled dollar is one dollar", "$$patch: delete", "$patch: delete", nil, nil},
		{"an unset variable is empty and named", "a${NOPE}b", "ab", nil, []string{"NOPE"}},
		{"a dollar before no name stays", "price: 5$ (or $)", "price: 5$ (or $)", nil, nil},
		{"each name once, sorted", "$LONG_NAME $A ${A}", "two 1 1", []string{"A", "LONG_NAME"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, used, unset := substitute([]byte(tc.in), lookup)

			if string(out) != tc.want || !slices.Equal(used, tc.used) || !slices.Equal(unset, tc.unset) {
				t.Fatalf("substitute(%q) = %q, used %v, unset %v; want %q, %v, %v", tc.in, out, used, unset, tc.want, tc.used, tc.unset)
			}
		})
	}
}
