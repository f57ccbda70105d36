package talhelper

import (
	"regexp"
	"slices"
)

// envPattern is what talhelper's envsubst replaces: ${NAME} and $NAME, and $$, which
// stands for a dollar sign (patches write "$$patch: delete" so).
var envPattern = regexp.MustCompile(`\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)`)

// substitute replaces ${NAME} and $NAME with lookup's value, as talhelper's envsubst does
// (an unset variable becomes empty), and returns the names used, sorted, and those unset.
func substitute(data []byte, lookup func(string) (string, bool)) (out []byte, used, unset []string) {
	out = envPattern.ReplaceAllFunc(data, func(m []byte) []byte {
		if string(m) == "$$" {
			return []byte("$")
		}

		sub := envPattern.FindSubmatch(m)
		name := string(sub[1])

		if name == "" {
			name = string(sub[2])
		}

		v, ok := lookup(name)
		if !ok {
			if !slices.Contains(unset, name) {
				unset = append(unset, name)
			}

			return nil
		}

		if !slices.Contains(used, name) {
			used = append(used, name)
		}

		return []byte(v)
	})

	slices.Sort(used)
	slices.Sort(unset)

	return out, used, unset
}
