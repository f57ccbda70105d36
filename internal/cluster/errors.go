package cluster

import (
	"fmt"
	"strconv"
)

// InputError is a problem with the user's files, placed at a file, a line and a field.
// Its message never quotes a secret: it names keys and paths, not values from secret files.
type InputError struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e *InputError) Error() string {
	s := e.File
	if e.Line > 0 {
		s += ":" + strconv.Itoa(e.Line)
	}

	if e.Field != "" {
		s += ": " + e.Field
	}

	return s + ": " + e.Msg
}

func inputErrorf(file string, line int, field, format string, args ...any) *InputError {
	return &InputError{File: file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Split returns the problems an error holds: the errors errors.Join put together,
// recursively, or the error itself.
func Split(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, Split(e)...)
		}

		return out
	}

	return []error{err}
}
