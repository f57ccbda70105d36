package schematic

import "fmt"

// PathOfficialExtensions is the path of the official extension list, for
// Positions.Lookup.
const PathOfficialExtensions = "customization.systemExtensions.officialExtensions"

// Position is a place in the source, 1-based.
type Position struct {
	Line   int
	Column int
}

// Positions tells where keys and list items sit in the source of a schematic.
//
// Paths join keys with dots and index list items: "customization.extraKernelArgs[1]".
// A key's position is where the key is written; an item's is where the item
// starts. Content reached only through an alias has no position of its own.
type Positions struct {
	byPath map[string]Position
}

// Lookup returns the position of a path.
func (p *Positions) Lookup(path string) (Position, bool) {
	if p == nil {
		return Position{}, false
	}

	pos, ok := p.byPath[path]

	return pos, ok
}

// Extension returns the position of the i-th official extension.
func (p *Positions) Extension(i int) (Position, bool) {
	return p.Lookup(fmt.Sprintf("%s[%d]", PathOfficialExtensions, i))
}

// ExtensionLines returns the line of each official extension, index-aligned
// with Schematic.Extensions; 0 where the line is unknown.
func (p *Positions) ExtensionLines(s *Schematic) []int {
	lines := make([]int, len(s.Customization.SystemExtensions.OfficialExtensions))
	for i := range lines {
		pos, _ := p.Extension(i)
		lines[i] = pos.Line
	}

	return lines
}
