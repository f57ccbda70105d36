package schematic

import "slices"

// DuplicateExtensions returns each official extension listed more than once,
// in the order of first appearance. The factory keeps duplicates, so they
// change the ID without changing the image.
func DuplicateExtensions(s *Schematic) []string {
	var dups []string

	count := map[string]int{}

	for _, name := range s.Customization.SystemExtensions.OfficialExtensions {
		count[name]++
		if count[name] == 2 {
			dups = append(dups, name)
		}
	}

	return dups
}

// RepeatedExtensionIndexes returns the index of every repeat of an official
// extension (all occurrences but the first), to point findings at the lines.
func RepeatedExtensionIndexes(s *Schematic) []int {
	var idx []int

	seen := map[string]bool{}

	for i, name := range s.Customization.SystemExtensions.OfficialExtensions {
		if seen[name] {
			idx = append(idx, i)
		}

		seen[name] = true
	}

	return idx
}

// IsSorted reports whether the official extensions are in ascending byte
// order, the order the factory's web UI writes. The same set in another order
// is a different schematic ID, so a hand-written list that is not sorted does
// not match the ID the UI shows for the same extensions.
func IsSorted(s *Schematic) bool {
	return FirstUnsorted(s) < 0
}

// FirstUnsorted returns the index of the first official extension that sorts
// before the one above it, or -1 when the list is sorted.
func FirstUnsorted(s *Schematic) int {
	exts := s.Customization.SystemExtensions.OfficialExtensions
	for i := 1; i < len(exts); i++ {
		if exts[i] < exts[i-1] {
			return i
		}
	}

	return -1
}

// WithSortedExtensions returns a copy of s whose official extensions are
// sorted, as the factory UI would write them. The rest of s is shared.
func (s *Schematic) WithSortedExtensions() *Schematic {
	c := *s
	c.Customization.SystemExtensions.OfficialExtensions = slices.Sorted(slices.Values(s.Customization.SystemExtensions.OfficialExtensions))

	return &c
}
