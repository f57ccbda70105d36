// Package mask replaces known secret values in anything about to be printed.
package mask

import (
	"sort"
	"strings"
)

// Replacement stands in for a masked value.
const Replacement = "***"

// Masker replaces a fixed set of secret values. The zero value masks nothing.
type Masker struct {
	values   []string
	replacer *strings.Replacer
}

// New masks every value (values shorter than 6 characters are ignored: they would
// mask ordinary words).
func New(values ...string) *Masker {
	var kept []string

	for _, v := range values {
		if len(v) >= 6 {
			kept = append(kept, v)
		}
	}

	// Longer values first, so a value that contains another is masked whole.
	sort.Slice(kept, func(i, j int) bool { return len(kept[i]) > len(kept[j]) })

	pairs := make([]string, 0, 2*len(kept))
	for _, v := range kept {
		pairs = append(pairs, v, Replacement)
	}

	return &Masker{values: kept, replacer: strings.NewReplacer(pairs...)}
}

// String masks s.
func (m *Masker) String(s string) string {
	if m == nil || len(m.values) == 0 {
		return s
	}

	return m.replacer.Replace(s)
}

// Values returns the masked values, for registering them with a CI's own masking.
func (m *Masker) Values() []string {
	if m == nil {
		return nil
	}

	return m.values
}
