package talhelper

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/a8m/envsubst/parse"
)

// referencePattern finds the names a text refers to as talhelper's envsubst
// (github.com/a8m/envsubst) reads them: $NAME and ${NAME...}, names of letters, digits and
// underscores; $$ is a dollar sign. It only names variables for the lookup and the findings:
// the substitution itself is the library's.
var referencePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\$|\$\{?([\p{L}\p{Nd}_]+)`) })

// envResult is what substituting a text did: the text, the variables it used (set and not
// empty), those talhelper refuses to run without (unset or empty where the form has no
// default), and whether the library could read the text at all.
type envResult struct {
	out          string
	used, failed []string
	invalid      bool
}

// substitute runs talhelper's envsubst over a text, with the restrictions talhelper sets
// (no unset and no empty variable), taking values from lookup.
func substitute(text string, lookup func(string) (string, bool)) envResult {
	var names []string

	for _, m := range referencePattern().FindAllStringSubmatch(text, -1) {
		if m[1] != "" && m[1] != "_" && !slices.Contains(names, m[1]) {
			names = append(names, m[1])
		}
	}

	if !strings.Contains(text, "$") {
		return envResult{out: text}
	}

	values := map[string]string{}
	set := map[string]bool{}

	for _, name := range names {
		if v, ok := lookup(name); ok {
			values[name], set[name] = v, true
		}
	}

	out, err := parse.New("talconfig", environ(names, values, set, ""), parse.Relaxed).Parse(text)
	if err != nil {
		return envResult{out: text, invalid: true}
	}

	res := envResult{out: out}

	if _, err := parse.New("talconfig", environ(names, values, set, ""), parse.Strict).Parse(text); err != nil {
		// Which variable talhelper stops at: the one that still fails when every other has a
		// value.
		for _, name := range names {
			if set[name] && values[name] != "" {
				continue
			}

			if _, err := parse.New("talconfig", environ(names, values, set, name), parse.Strict).Parse(text); err != nil {
				res.failed = append(res.failed, name)
			}
		}
	}

	for _, name := range names {
		if set[name] && values[name] != "" {
			res.used = append(res.used, name)
		}
	}

	slices.Sort(res.used)
	slices.Sort(res.failed)

	return res
}

// environ is the library's environment: the variables set, or, when only is named, every
// other one set to a placeholder and only as it is.
func environ(names []string, values map[string]string, set map[string]bool, only string) []string {
	var env []string

	for _, name := range names {
		switch {
		case only != "" && name != only:
			env = append(env, name+"=set")
		case set[name]:
			env = append(env, name+"="+values[name])
		}
	}

	return env
}
