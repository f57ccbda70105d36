package talhelper

import (
	"slices"
	"testing"
)

func TestSubstitute_AsTalhelpersEnvsubst(t *testing.T) {
	env := map[string]string{"A": "1", "LONG_NAME": "two", "EMPTY": ""}
	lookup := func(k string) (string, bool) {
		v, ok := env[k]

		return v, ok
	}

	for _, tc := range []struct {
		name, in, want string
		used, failed   []string
	}{
		{"braces", "x${A}y", "x1y", []string{"A"}, nil},
		{"bare name", "$LONG_NAME-z", "two-z", []string{"LONG_NAME"}, nil},
		{"a doubled dollar is one dollar", "$$patch: delete", "$patch: delete", nil, nil},
		{"an unset variable is empty and named", "a${NOPE}b", "ab", nil, []string{"NOPE"}},
		{"an empty variable is refused as talhelper refuses it", "a${EMPTY}b", "ab", nil, []string{"EMPTY"}},
		{"a dollar before no name stays", "price: 5$ (or $)", "price: 5$ (or $)", nil, nil},
		{"each name once, sorted", "$LONG_NAME $A ${A}", "two 1 1", []string{"A", "LONG_NAME"}, nil},
		{":- gives the default for an unset variable", "${NOPE:-fallback}", "fallback", nil, nil},
		{":- gives the default for an empty variable", "${EMPTY:-fallback}", "fallback", nil, nil},
		{":- keeps a set value", "${A:-fallback}", "1", []string{"A"}, nil},
		{"- gives the default only when unset", "${NOPE-d}/${A-d}", "d/1", []string{"A"}, nil},
		{":= is a default too", "${NOPE:=d}", "d", nil, nil},
		{":+ gives the alternative when set", "${A:+alt}/${NOPE:+alt}", "alt/", []string{"A"}, nil},
		{"a default may name a variable", "${NOPE:-$A}", "1", []string{"A"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := substitute(tc.in, lookup)

			if res.out != tc.want || !slices.Equal(res.used, tc.used) || !slices.Equal(res.failed, tc.failed) || res.invalid {
				t.Fatalf("substitute(%q) = %q, used %v, failed %v, invalid %v; want %q, %v, %v", tc.in, res.out, res.used, res.failed, res.invalid, tc.want, tc.used, tc.failed)
			}
		})
	}
}

func TestSubstitute_AnUnclosedBraceIsWhatTalhelpersEnvsubstCannotRead(t *testing.T) {
	res := substitute("a ${NAME b", func(string) (string, bool) { return "", false })
	if !res.invalid || res.out != "a ${NAME b" {
		t.Fatalf("want the text unread and kept, got %+v", res)
	}
}
