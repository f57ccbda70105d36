package report

import (
	"fmt"
	"io"
	"strings"
)

// Views are the renderings of one kind of result, one per format: the formats a command
// offers are the keys of its views, and a format it does not offer is an error, never a
// quiet fallback to text. Every command's view goes through one.
type Views[T any] map[string]func(io.Writer, T) error

// formatOrder is the order formats are listed in help and errors.
var formatOrder = []string{FormatText, FormatJSON, FormatGitHub, FormatMarkdown}

// Formats are the views' formats, in formatOrder.
func (v Views[T]) Formats() []string {
	var out []string

	for _, f := range formatOrder {
		if _, ok := v[f]; ok {
			out = append(out, f)
		}
	}

	return out
}

// Write renders x in format.
func (v Views[T]) Write(w io.Writer, format string, x T) error {
	view, ok := v[format]
	if !ok {
		return &UnknownFormatError{Format: format, Formats: v.Formats()}
	}

	return view(w, x)
}

// UnknownFormatError is a format a view does not have.
type UnknownFormatError struct {
	Format  string
	Formats []string
}

func (e *UnknownFormatError) Error() string {
	return fmt.Sprintf("unknown format %q (one of %s)", e.Format, strings.Join(e.Formats, ", "))
}

// stringErrView adapts a view that builds a string or fails.
func stringErrView[T any](render func(T) (string, error)) func(io.Writer, T) error {
	return func(w io.Writer, x T) error {
		s, err := render(x)
		if err != nil {
			return err
		}

		_, err = io.WriteString(w, s)

		return err
	}
}

// stringView adapts a view that builds a string.
func stringView[T any](render func(T) string) func(io.Writer, T) error {
	return func(w io.Writer, x T) error {
		_, err := io.WriteString(w, render(x))

		return err
	}
}
