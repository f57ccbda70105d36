package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/talops/talops/internal/images"
	"github.com/talops/talops/internal/plan"
)

var schematicViews = Views[*images.Schematics]{
	FormatText: stringView(SchematicsText), FormatJSON: SchematicsJSON, FormatMarkdown: stringView(SchematicsMarkdown),
}

// SchematicFormats lists the formats of the schematics command.
var SchematicFormats = schematicViews.Formats()

// WriteSchematics writes the schematics view in one format.
func WriteSchematics(w io.Writer, format string, s *images.Schematics) error {
	return schematicViews.Write(w, format, s)
}

// SchematicsJSON writes the view indented, for tools.
func SchematicsJSON(w io.Writer, s *images.Schematics) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")

	return enc.Encode(s)
}

// SchematicsText is the view for people: each schematic, then each node's images,
// then one summary line.
func SchematicsText(s *images.Schematics) string {
	var b strings.Builder

	for _, sc := range s.Schematics {
		fmt.Fprintf(&b, "schematic %s %s\n  file        %s\n", sc.Name, sc.ID, sc.File)

		switch {
		case sc.Opaque:
			b.WriteString("  extensions  " + opaqueExtensions + "\n")
		case len(sc.Extensions) == 0:
			b.WriteString("  extensions  (none)\n")
		}

		for i, e := range sc.Extensions {
			label := ""
			if i == 0 {
				label = "extensions"
			}

			fmt.Fprintf(&b, "  %-10s  %s\n", label, e)
		}

		b.WriteString("\n")
	}

	for _, n := range s.Nodes {
		fmt.Fprintf(&b, "node %s (%s)\n  installer   %s\n", n.Name, nodeSchematic(n), n.Installer)

		if n.ISO != "" {
			fmt.Fprintf(&b, "  iso         %s\n", n.ISO)
		}

		if n.DiskImage != "" {
			fmt.Fprintf(&b, "  disk image  %s\n", n.DiskImage)
		}

		b.WriteString("\n")
	}

	b.WriteString(SchematicsSummary(s) + "\n")

	return b.String()
}

// SchematicsSummary is the closing line: what was counted, for which release and factory.
func SchematicsSummary(s *images.Schematics) string {
	line := fmt.Sprintf("%s, %s: Talos %s, platform %s, factory %s",
		plan.Plural(len(s.Schematics), "schematic"), plan.Plural(len(s.Nodes), "node"), s.TalosVersion, s.Platform, s.ImageFactory)

	if s.Registered {
		var opaque []string

		for _, sc := range s.Schematics {
			if sc.Opaque {
				opaque = append(opaque, sc.Name)
			}
		}

		if len(opaque) == 0 {
			line += " (every schematic registered, IDs confirmed)"
		} else {
			line += fmt.Sprintf(" (every schematic registered, IDs confirmed, but opaque %s: not posted, the factory already has its ID)", strings.Join(opaque, ", "))
		}
	}

	return line
}

// opaqueExtensions stands for the extensions of a schematic file that holds only its ID.
const opaqueExtensions = "unknown (opaque: the file holds only the ID; import online or GET /schematics/{id} for the content)"

// SchematicsMarkdown is the job summary: a table of schematics and one of nodes.
func SchematicsMarkdown(s *images.Schematics) string {
	var b strings.Builder

	b.WriteString("### talops schematics\n\n")
	b.WriteString(SchematicsSummary(s) + "\n")

	if len(s.Schematics) > 0 {
		b.WriteString("\n| schematic | ID | extensions |\n|---|---|---|\n")

		for _, sc := range s.Schematics {
			exts := make([]string, 0, len(sc.Extensions))
			for _, e := range sc.Extensions {
				exts = append(exts, pipes(code(e)))
			}

			if sc.Opaque {
				exts = append(exts, opaqueExtensions)
			}

			fmt.Fprintf(&b, "| %s | %s | %s |\n", pipes(code(sc.Name)), pipes(code(sc.ID)), strings.Join(exts, "<br>"))
		}
	}

	if len(s.Nodes) > 0 {
		b.WriteString("\n| node | schematic | installer | boot images |\n|---|---|---|---|\n")

		for _, n := range s.Nodes {
			var links []string
			if n.ISO != "" {
				links = append(links, "[ISO]("+n.ISO+")")
			}

			if n.DiskImage != "" {
				links = append(links, "[disk image]("+n.DiskImage+")")
			}

			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(n.Name), cell(nodeSchematic(n)), pipes(code(n.Installer)), strings.Join(links, " · "))
		}
	}

	return b.String()
}

func nodeSchematic(n images.NodeImage) string {
	s := n.Schematic
	if s == "" {
		s = "vanilla"
	}

	if n.SecureBoot {
		s += ", SecureBoot"
	}

	return s
}
