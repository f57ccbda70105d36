package catalog

import (
	"maps"
	"slices"
	"strings"
)

// Contradiction is an NVIDIA driver an Image Factory listing gives for a release where the
// release facts this build embeds, read from the release notes, give another.
type Contradiction struct {
	Flavour Flavour
	// Listed is the factory's driver, Facts the embedded one (the one used).
	Listed, Facts string
}

// Against holds a release the Image Factory listed to the facts this build verified: where
// the facts read a flavour's NVIDIA driver from the release notes (not derived) and the
// listing names another, the listing's NVIDIA images of that flavour are named for the
// facts' driver, and the contradiction is returned to be reported. A factory that is broken
// or hostile cannot move a node's driver by its answer.
func (r Release) Against(facts *Facts) (Release, []Contradiction) {
	rf, ok := facts.Release(r.tag)
	if !ok || strings.Contains(rf.Derived, "NVIDIA") {
		return r, nil
	}

	var out []Contradiction

	for _, f := range slices.Sorted(maps.Keys(rf.Nvidia)) {
		want := rf.Nvidia[f]

		got, _, listed := r.NvidiaDriver(f)
		if !listed || got == want {
			continue
		}

		if out == nil {
			r.extensions = maps.Clone(r.extensions)
		}

		out = append(out, Contradiction{Flavour: f, Listed: got, Facts: want})

		for _, kind := range []NvidiaKind{KernelModuleProprietary, KernelModuleOpen, ContainerToolkit, FabricManager} {
			name := kind.ExtensionName(f)
			if tag, found := r.extensions[name]; found && strings.HasPrefix(tag, got) {
				r.extensions[name] = want + strings.TrimPrefix(tag, got)
			}
		}
	}

	return r, out
}
