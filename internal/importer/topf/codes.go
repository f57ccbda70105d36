package topf

import "github.com/talops/talops/internal/importer"

// Finding codes of an import: the codes every importer shares.
const (
	// CodeUnsupported is a topf field or file talops cannot express: it was not imported.
	CodeUnsupported = importer.CodeUnsupported
	// CodeSubstituted is an environment variable a template read with env, whose value
	// is now written into the imported files.
	CodeSubstituted = importer.CodeSubstituted
	// CodeMapped says how a topf field was expressed in talops, where that differs from
	// its own key.
	CodeMapped = importer.CodeMapped
)
