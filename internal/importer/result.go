package importer

import (
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/scaffold"
)

// Result is an imported repository.
type Result struct {
	// Files are the repository's files but the bundle, paths relative to its directory.
	Files []scaffold.File
	// Findings say what was not imported, or imported otherwise, each at its place.
	Findings []finding.Finding
	// Cluster and TalosVersion are those of talops.yaml.
	Cluster, TalosVersion string
}
