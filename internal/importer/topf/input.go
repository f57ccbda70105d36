package topf

import "github.com/talops/talops/internal/importer"

// Input is a topf repository as topf would read it.
type Input struct {
	// File is topf.yaml's path as findings name it; Data its contents.
	File string
	Data []byte
	// Lookup is the environment a template's env function reads (topf reads the process
	// environment; an unset variable is "").
	Lookup func(name string) (string, bool)
	// ReadFile reads a file by its slash path relative to topf.yaml's directory.
	ReadFile func(rel string) ([]byte, error)
	// ListFiles lists the regular files below a directory (relative to topf.yaml's), as
	// slash paths relative to that same directory, in lexical order; a missing directory
	// has none.
	ListFiles func(rel string) ([]string, error)
	// Dir is topf.yaml's directory as findings name the files in it ("": as they are).
	Dir string
	// Recover gives the schematic of a raw schematicId, from the Image Factory (nil: the
	// import runs offline).
	Recover importer.Recover
	// Secrets is the name the imported repository's bundle gets ("" for none).
	Secrets string
	// TalosVersion is the Talos release the nodes run, given on the command line
	// (--talos-version) or read from them (TalosFromNodes): the cluster's when the source
	// names none.
	TalosVersion string
	// TalosFromNodes says TalosVersion is what the running nodes report (--talosconfig).
	TalosFromNodes bool
}

// Result is the imported repository.
type Result = importer.Result
