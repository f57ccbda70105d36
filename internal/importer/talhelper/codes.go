package talhelper

import "github.com/talops/talops/internal/importer"

// Finding codes of an import: the codes every importer shares.
const (
	// CodeUnsupported is a talhelper field talops cannot express: it was not imported.
	CodeUnsupported = importer.CodeUnsupported
	// CodeSubstituted is an environment variable whose value was written into the
	// imported files (talops has no substitution of its own).
	CodeSubstituted = importer.CodeSubstituted
	// CodeUnset is a variable talhelper would refuse to run without.
	CodeUnset = importer.CodeUnset
	// CodeMapped says how a talhelper field was expressed in talops, where that differs
	// from its own key.
	CodeMapped = importer.CodeMapped
)

// talconfigDir names the directory patch and file paths stay in, in errors.
const talconfigDir = "the talconfig's directory"
