package importer

import "github.com/talops/talops/internal/schematic"

// Recover returns the schematic of an installer's ID that no file of the source has,
// from the Image Factory at factory (its base URL): the only place that knows what the ID
// holds. A nil Recover is an import that may not ask (offline).
type Recover func(factory, id string) (*schematic.Schematic, error)

// RecoveredName is the name an import gives a schematic recovered from the factory.
func RecoveredName(id string) string {
	return "factory-" + id[:min(12, len(id))]
}

// RecoveredHeader heads the file of a schematic recovered from the factory.
func RecoveredHeader(id string) string {
	return "# The Image Factory's schematic of ID " + id + " (GET /schematics/" + id + "): no file of the source had it.\n"
}

// OpaqueSchematic is the file of a schematic known only by its ID (an installer's, which
// no file of the source had and factory did not give, for why): talops names the installer
// of that ID, and the file says how to fill it in.
func OpaqueSchematic(factory, id, why string) []byte {
	return []byte("# The Image Factory schematic of ID " + id + ".\n" +
		"# No file of the source had it, and " + why + ".\n" +
		"# Only the ID is known (an opaque schematic): talops names the installer of it, but cannot\n" +
		"# check its extensions. Fill it in: replace this file with what the factory gives for\n" +
		"# GET " + factory + "/schematics/" + id + " (or run the import online).\n" +
		"id: " + id + "\n")
}
