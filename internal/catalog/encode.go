package catalog

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
)

// Encode renders the catalog in the embedded file's shape, byte for byte the same for the same
// content: releases in version order (as people read them), extensions by name, two-space
// indent, trailing newline.
func (c *Catalog) Encode() []byte {
	var b bytes.Buffer

	b.WriteString("{\n  \"talos\": {")

	for i, v := range c.order {
		r := c.releases[v.tag()]

		if i > 0 {
			b.WriteByte(',')
		}

		b.WriteString("\n    ")
		writeString(&b, r.tag)
		b.WriteString(": {")

		for j, name := range slices.Sorted(maps.Keys(r.extensions)) {
			if j > 0 {
				b.WriteByte(',')
			}

			b.WriteString("\n      ")
			writeString(&b, name)
			b.WriteString(": ")
			writeString(&b, r.extensions[name])
		}

		if len(r.extensions) > 0 {
			b.WriteString("\n    ")
		}

		b.WriteByte('}')
	}

	if len(c.order) > 0 {
		b.WriteString("\n  ")
	}

	b.WriteString("}\n}\n")

	return b.Bytes()
}

func writeString(b *bytes.Buffer, s string) {
	// Names and tags are validated to a plain ASCII alphabet on the way in, so this never
	// needs the HTML escaping json.Marshal would apply.
	out, _ := json.Marshal(s)
	b.Write(out)
}
