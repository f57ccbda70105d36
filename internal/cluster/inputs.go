package cluster

import (
	"cmp"
	"path"
	"slices"
	"strings"
)

// Input is one file a state of the repository is made from, exactly as it was read.
type Input struct {
	// Path is the file's path relative to the repository directory, cleaned.
	Path string
	Data []byte
	// Config is set on a file that holds machine config documents: a patch, or a node's
	// complete config.
	Config bool
}

// Inputs are talops.yaml and every file it names (patches, node configs, schematics, the
// Proxmox CA, the secrets bundle as committed, encrypted or not), each once, by path: what
// apply reads, so what a reviewed plan binds byte for byte.
func (c *Cluster) Inputs() []Input {
	configs := map[string]bool{}

	for _, list := range [][]string{c.Spec.Patches.All, c.Spec.Patches.ControlPlane, c.Spec.Patches.Worker} {
		for _, p := range list {
			configs[cleanPath(p)] = true
		}
	}

	for _, n := range c.Spec.Nodes {
		for _, p := range n.Patches {
			configs[cleanPath(p)] = true
		}

		if n.Config != "" {
			configs[cleanPath(n.Config)] = true
		}
	}

	out := make([]Input, 0, len(c.files)+1)

	if c.raw != nil {
		out = append(out, Input{Path: FileName, Data: c.raw})
	}

	for rel, data := range c.files {
		p := cleanPath(rel)
		out = append(out, Input{Path: p, Data: data, Config: configs[p]})
	}

	// Two spellings of one path ("./patches/a.yaml", "patches/a.yaml") read one file.
	slices.SortFunc(out, func(a, b Input) int { return cmp.Compare(a.Path, b.Path) })

	return slices.CompactFunc(out, func(a, b Input) bool { return a.Path == b.Path })
}

// cleanPath is a path talops.yaml names as the repository knows it.
func cleanPath(rel string) string {
	return path.Clean(strings.ReplaceAll(rel, `\`, "/"))
}
