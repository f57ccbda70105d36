// Package hostile holds inputs that try to exhaust talops, and the budget one input of a
// fuzz target over user input must stay within.
package hostile

import (
	"fmt"
	"strings"
)

// AliasBomb is a YAML value in flow style whose anchors each list the previous one ten
// times: levels anchors stand for 10^(levels-1) copies of a ten-byte string, in a few
// dozen bytes a level. It goes wherever a value may be written: `extraConfig: ` + AliasBomb(9).
func AliasBomb(levels int) string {
	var b strings.Builder

	b.WriteString(`{a0: &a0 ["xxxxxxxxxx"]`)

	for i := 1; i < levels; i++ {
		prev := fmt.Sprintf("*a%d", i-1)
		fmt.Fprintf(&b, ", a%d: &a%d [%s]", i, i, strings.Repeat(prev+",", 9)+prev)
	}

	b.WriteString("}")

	return b.String()
}
