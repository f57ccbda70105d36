package talhelper

import "github.com/talops/talops/internal/importer"

// Input is a talhelper repository as talhelper would read it.
type Input struct {
	// File is the talconfig's path as findings name it; Data its contents.
	File string
	Data []byte
	// Lookup is the environment talhelper substitutes from: the process environment and
	// talenv.yaml.
	Lookup func(name string) (string, bool)
	// ReadPatch reads a file a patch names with @, by its path relative to the talconfig's
	// directory (one outside it climbs out with ".."); an
	// *importer.OutsideError (a symbolic link out of the repository) refuses the import.
	ReadPatch func(rel string) ([]byte, error)
	// Within is the talconfig's directory below the root of the Git repository holding it,
	// a slash path ("." the root; "" none holds it): a file named outside the directory
	// but inside that repository is imported under importer.SharedDir, one outside it
	// refuses the import (importer.Locate).
	Within string
	// Schematics are the schematic files named on the command line (--schematic): the
	// import ties each talosImageURL installer to the one of its schematic ID.
	Schematics []SchematicFile
	// ListDir lists the files below the talconfig's directory, as slash paths relative to
	// it (nil: only talhelper's schematic.yaml is looked for there).
	ListDir func() ([]string, error)
	// Secrets is the name the imported repository's bundle gets ("" for none).
	Secrets string
	// TalosVersion is the Talos release the nodes run, given on the command line
	// (--talos-version) or read from them (TalosFromNodes): the cluster's when the source
	// names none.
	TalosVersion string
	// TalosFromNodes says TalosVersion is what the running nodes report (--talosconfig).
	TalosFromNodes bool
	// Recover gives the schematic of a talosImageURL's ID that no file has, from the Image
	// Factory (nil: the import runs offline).
	Recover importer.Recover
	// HasAESCBC says the bundle holds an aescbcEncryptionSecret, which talhelper writes
	// into configs before the 1.14 contract and the talops generator does not.
	HasAESCBC bool
}

// Result is the imported repository.
type Result = importer.Result
