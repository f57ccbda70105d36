package talhelper

import (
	"fmt"
	"slices"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/finding"
)

// substituteEnv replaces variables in every scalar of the talconfig, as talhelper does
// before it reads it (comments are left alone, as talhelper strips them first). Each
// variable used or unset is one finding at its first line; no value is ever quoted.
func (im *importer) substituteEnv(root *yaml.Node) {
	im.substituteIn(root, im.in.File)
}

func (im *importer) substituteIn(root *yaml.Node, file string) (changed bool) {
	lookup := im.in.Lookup
	if lookup == nil {
		lookup = func(string) (string, bool) { return "", false }
	}

	var seen []string

	walkScalars(root, func(n *yaml.Node) {
		out, used, unset := substitute([]byte(n.Value), lookup)
		if len(used) == 0 && len(unset) == 0 && string(out) == n.Value {
			return
		}

		changed = changed || string(out) != n.Value
		n.Value = string(out)
		// A substituted value is a string, whatever it looks like.
		if n.Tag == "" || n.Tag == "!!str" {
			n.Style &^= yaml.TaggedStyle
		}

		for _, name := range used {
			if slices.Contains(seen, name) {
				continue
			}

			seen = append(seen, name)
			im.res.Findings = append(im.res.Findings, finding.Finding{
				Severity: finding.Warning, Code: CodeSubstituted, File: file, Line: n.Line, Path: "${" + name + "}",
				Message: fmt.Sprintf("talops has no environment substitution: the value of %s is written into the imported files (move it to a patch of its own, and keep it out of Git if it is a secret)", name),
			})
		}

		for _, name := range unset {
			if slices.Contains(seen, name) {
				continue
			}

			seen = append(seen, name)
			im.res.Findings = append(im.res.Findings, finding.Finding{
				Severity: finding.Error, Code: CodeUnset, File: file, Line: n.Line, Path: "${" + name + "}",
				Message: fmt.Sprintf("%s is not set (talhelper refuses to run without it); it was left empty: set it in talenv.yaml or the environment and import again", name),
			})
		}
	})

	return changed
}
