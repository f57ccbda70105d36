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
