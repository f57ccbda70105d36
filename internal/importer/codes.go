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
	// CodeDiffers is a node whose running config (or schematic, or version) is not what
	// the imported repository renders for it (import --talosconfig --allow-differences).
	CodeDiffers = "import.differs-from-running"
)

// GivenVersion says where a Talos release given for a source came from, and what to say
// when the source names another one.
func GivenVersion(fromNodes bool, named, given, source string) (from, conflict string) {
	if fromNodes {
		return "the release the running nodes report (--talosconfig)",
			"talops.yaml takes " + named + ", as the " + source + " names it, but the running nodes report " + given + " (--talosconfig): check which one they should run"
	}

	return "given with --talos-version",
		"talops.yaml takes " + named + ", as the " + source + " names it: --talos-version " + given + " is for a " + source + " that names none"
}
