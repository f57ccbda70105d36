package importer

// Finding codes of an import, the same for every importer. They are stable, as the other
// finding codes are.
const (
	// CodeUnsupported is a source field talops cannot express: it was not imported.
	CodeUnsupported = "import.unsupported"
	// CodeSubstituted is an environment variable whose value was written into the
	// imported files (talops has no substitution of its own).
	CodeSubstituted = "import.env-substituted"
	// CodeUnset is a variable the source tool would refuse to run without.
	CodeUnset = "import.env-unset"
	// CodeMapped says how a source field was expressed in talops, where that differs
	// from its own key.
	CodeMapped = "import.mapped"
)
