package topf

// Finding codes of an import; the same codes as the talhelper import's.
const (
	// CodeUnsupported is a topf field or file talops cannot express: it was not imported.
	CodeUnsupported = "import.unsupported"
	// CodeSubstituted is an environment variable a template read with env, whose value
	// is now written into the imported files.
	CodeSubstituted = "import.env-substituted"
	// CodeMapped says how a topf field was expressed in talops, where that differs from
	// its own key.
	CodeMapped = "import.mapped"
)
