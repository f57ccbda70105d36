package talhelper

import (
	"fmt"
	"slices"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
)

// substituteEnv replaces variables in every scalar of the talconfig, as talhelper does
// before it reads it (comments are left alone, as talhelper strips them first). Each
// variable used or refused is one finding at its first line; no value is ever quoted.
func (im *mapping) substituteEnv(root *yaml.Node) error {
	_, err := im.substituteIn(root, im.in.File)

	return err
}

// substituteIn substitutes the scalars of one file. A value talhelper's envsubst cannot
// read at all (a ${ never closed on its line) is an error at its line: talhelper stops there.
func (im *mapping) substituteIn(root *yaml.Node, file string) (changed bool, err error) {
	lookup := im.lookup()

	var seen []string

	walkScalars(root, func(n *yaml.Node) {
		if err != nil {
			return
		}

		res := substitute(n.Value, lookup)
		if res.invalid {
			err = &cluster.InputError{File: file, Line: n.Line, Msg: "talhelper's envsubst cannot read this value (a ${ not closed on its line); talhelper stops here"}

			return
		}

		if len(res.used) == 0 && len(res.failed) == 0 && res.out == n.Value {
			return
		}

		changed = changed || res.out != n.Value
		n.Value = res.out
		// A substituted value is a string, whatever it looks like.
		if n.Tag == "" || n.Tag == "!!str" {
			n.Style &^= yaml.TaggedStyle
		}

		for _, name := range res.used {
			if slices.Contains(seen, name) {
				continue
			}

			seen = append(seen, name)
			im.substituted(file, n.Line, name)
		}

		for _, name := range res.failed {
			if slices.Contains(seen, name) {
				continue
			}

			seen = append(seen, name)

			why := "is not set"
			if _, set := lookup(name); set {
				why = "is empty (talhelper's envsubst refuses an empty variable as well)"
			}

			im.repo.Report(finding.Finding{
				Severity: finding.Error, Code: CodeUnset, File: file, Line: n.Line, Path: "${" + name + "}",
				Message: fmt.Sprintf("%s %s (talhelper refuses to run without it); it was left empty: set it in talenv.yaml or the environment and import again", name, why),
			})
		}
	})

	return changed, err
}

// substituted says that a variable's value was written into the imported files, never the
// value itself.
func (im *mapping) substituted(file string, line int, name string) {
	im.repo.Report(finding.Finding{
		Severity: finding.Warning, Code: CodeSubstituted, File: file, Line: line, Path: "${" + name + "}",
		Message: fmt.Sprintf("talops has no environment substitution: the value of %s is written into the imported files (move it to a patch of its own, and keep it out of Git if it is a secret)", name),
	})
}

// lookup is the environment talhelper substitutes from; without one nothing is set.
func (im *mapping) lookup() func(string) (string, bool) {
	if im.in.Lookup == nil {
		return func(string) (string, bool) { return "", false }
	}

	return im.in.Lookup
}
