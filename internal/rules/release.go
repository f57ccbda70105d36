package rules

import (
	"slices"

	"github.com/talops/talops/internal/catalog"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/schematic"
)

// ReleaseLookup says what became of looking the cluster's Talos release up beyond the
// embedded release data. The zero value means nobody looked: the embedded data is all there is.
type ReleaseLookup struct {
	// Fetched: the release's extensions came from the Image Factory.
	Fetched bool
	// Unlisted: the Image Factory does not list the release among the versions it builds.
	Unlisted bool
	// Skipped says why the factory was not asked, or what went wrong asking it.
	Skipped string
}

// SchematicFile is a schematic talops.yaml names, with the line of each official extension.
type SchematicFile struct {
	// File is the display path of the schematic.
	File string
	// Extensions are the official extensions as written ("siderolabs/zfs").
	Extensions []string
	// Lines holds the line of each extension, index-aligned; 0 where unknown.
	Lines []int
}

// LoadSchematicFiles reads every schematic talops.yaml names. A schematic that does not load
// is left out: rendering reports it.
func LoadSchematicFiles(c *cluster.Cluster) map[string]*SchematicFile {
	out := map[string]*SchematicFile{}

	for name, rel := range c.Spec.Schematics {
		data, _ := c.File(rel)

		s, pos, err := schematic.LoadWithPositions(data)
		if err != nil {
			continue
		}

		out[name] = &SchematicFile{File: c.Path(rel), Extensions: s.Extensions(), Lines: pos.ExtensionLines(s)}
	}

	return out
}

// catalogOf returns the release data the rules judge against.
func catalogOf(in *Input) *catalog.Catalog {
	if in.Catalog != nil {
		return in.Catalog
	}

	return catalog.Embedded()
}

// schematicFiles returns the schematic files of the input, read from the cluster (once) when
// the caller did not.
func schematicFiles(in *Input) map[string]*SchematicFile {
	if in.SchematicFiles == nil {
		in.SchematicFiles = LoadSchematicFiles(in.Cluster)
	}

	return in.SchematicFiles
}

// release returns the data of the cluster's Talos release, if the catalog has it.
func release(in *Input) (catalog.Release, bool) {
	return catalogOf(in).Release(in.Cluster.Spec.TalosVersion)
}

// usedSchematics lists, sorted, the schematics at least one rendered node boots.
func usedSchematics(in *Input) []string {
	var out []string

	for _, n := range rendered(in) {
		if s := n.Node.Schematic; s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}

	slices.Sort(out)

	return out
}
