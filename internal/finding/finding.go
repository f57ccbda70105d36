// Package finding is the one shape every check reports in.
package finding

import (
	"cmp"
	"slices"
)

// Severity of a finding.
type Severity string

// Severities, most severe first.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Info    Severity = "info"
)

func (s Severity) rank() int {
	switch s {
	case Error:
		return 0
	case Warning:
		return 1
	default:
		return 2
	}
}

// Finding is one problem or note, placed where the user edits.
type Finding struct {
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	Message  string   `json:"message"`
	File     string   `json:"file,omitempty"`
	Line     int      `json:"line,omitempty"`
	Node     string   `json:"node,omitempty"`
	Path     string   `json:"path,omitempty"`
}

// Sort orders findings by severity, file, line, node and code, so output is stable.
func Sort(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(
			cmp.Compare(a.Severity.rank(), b.Severity.rank()),
			cmp.Compare(a.File, b.File),
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Node, b.Node),
			cmp.Compare(a.Code, b.Code),
			cmp.Compare(a.Message, b.Message),
		)
	})
}

// Count returns how many findings have each severity.
func Count(fs []Finding) (errors, warnings, infos int) {
	for _, f := range fs {
		switch f.Severity {
		case Error:
			errors++
		case Warning:
			warnings++
		default:
			infos++
		}
	}

	return errors, warnings, infos
}

// HasErrors reports whether any finding is an error.
func HasErrors(fs []Finding) bool {
	return slices.ContainsFunc(fs, func(f Finding) bool { return f.Severity == Error })
}

// Strict turns every warning into an error, as --strict asks; the findings are copied.
func Strict(fs []Finding) []Finding {
	out := slices.Clone(fs)

	for i := range out {
		if out[i].Severity == Warning {
			out[i].Severity = Error
		}
	}

	return out
}
