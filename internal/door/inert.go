package door

import (
	"encoding/json"
	"strings"
	"unicode"
)

// breakChar is what keeps a line of content from being a workflow command: a zero-width
// space, which the runner neither trims nor reads as part of a command.
const breakChar = "\u200b"

// Inert makes text printed to a step's log carry no workflow command: the runner honours
// `##[command]` anywhere in a line and `::command::` at its start after whitespace, and a
// plan's diff, a node's message or a file name may hold either. talops' own commands are
// written by the action's githubactions writer, never through here.
//
// A JSON document keeps its data: the '#' is written as the escape \u0023, which decodes
// to the same string. Other text gets a zero-width space: in `##[`, and at the start of a
// line (the runner splits lines at \r as well as \n) that would otherwise start with `::`.
func Inert(s string) string {
	if !strings.Contains(s, "##[") && !strings.Contains(s, "::") {
		return s
	}

	if json.Valid([]byte(s)) {
		// In JSON "##[" can only be inside a string, where an escape is data.
		return strings.ReplaceAll(s, "##[", `\u0023#[`)
	}

	s = strings.ReplaceAll(s, "##[", "#"+breakChar+"#[")

	var b strings.Builder

	b.Grow(len(s))

	start := 0

	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '\n' && s[i] != '\r' {
			continue
		}

		line := s[start:i]
		if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") {
			b.WriteString(breakChar)
		}

		b.WriteString(line)

		if i < len(s) {
			b.WriteByte(s[i])
		}

		start = i + 1
	}

	return b.String()
}
