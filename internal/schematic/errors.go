package schematic

import (
	"fmt"
	"strings"
)

// UnknownFieldError is a key the factory does not know. The factory rejects
// such a schematic; a tool that ignored the key would compute the ID of a
// schematic the user did not write.
type UnknownFieldError struct {
	Field  string   // the key as written
	Path   string   // the mapping holding it, "customization.systemExtensions"; empty at the top level
	Known  []string // the keys allowed in that mapping, in the factory's order
	Line   int
	Column int
}

// Error names the line, the key, where it is and what is allowed there.
func (e *UnknownFieldError) Error() string {
	where := e.Path
	if where == "" {
		where = "the top level"
	}

	return fmt.Sprintf("line %d: unknown field %q in %s (known fields: %s)",
		e.Line, e.Field, where, strings.Join(e.Known, ", "))
}

// DecodeError is a document that is not valid YAML, or a value of the wrong
// shape for its field, at the place the YAML library reports.
type DecodeError struct {
	Line   int // 0 when the library gives no position
	Column int
	Msg    string
	Err    error // the library's error, when there is one
}

// Error gives the line and the library's message.
func (e *DecodeError) Error() string {
	if e.Line == 0 {
		return e.Msg
	}

	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// Unwrap returns the library's error.
func (e *DecodeError) Unwrap() error { return e.Err }
