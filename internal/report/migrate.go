package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/talops/talops/internal/migrate"
	"github.com/talops/talops/internal/plan"
)

// MigrateView is what migrate --check (and migrate --format json) prints: the migration in one screen (what would
// move, which old defaults are kept, what would stay and why) and its proof.
type MigrateView struct {
	// Dir is the repository; the places are relative to it, as talops.yaml names files.
	Dir string `json:"dir"`
	// From is the config contract the repository renders with, Target the one it would
	// move to.
	From   string `json:"from"`
	Target string `json:"target"`
	migrate.Summary
	// Nodes counts the nodes rendered before and after and compared.
	Nodes    int               `json:"nodes"`
	Refusals []migrate.Refusal `json:"refusals"`
	// Unpinned says talops.yaml names no configVersion (From is talosVersion's own).
	Unpinned bool `json:"unpinned,omitempty"`
	// Written says the files were written (never with --check).
	Written bool `json:"written"`
}

var migrateViews = Views[MigrateView]{FormatText: migrateText, FormatJSON: writeIndented[MigrateView]}

// MigrateFormats are the formats of migrate --check.
var MigrateFormats = migrateViews.Formats()

// WriteMigrate writes the view in a format.
func WriteMigrate(w io.Writer, format string, v MigrateView) error {
	if v.Refusals == nil {
		v.Refusals = []migrate.Refusal{}
	}

	return migrateViews.Write(w, format, v)
}

// maxPlaces is how many places a line names before it counts the rest.
const maxPlaces = 3

// migrateText is the view for people.
func migrateText(w io.Writer, v MigrateView) error {
	var b strings.Builder

	fmt.Fprintf(&b, "Migration of %s from the %s contract to %s (checked, nothing written)\n", v.Dir, v.From, v.Target)

	if n := fields(v.Moves); n > 0 {
		fmt.Fprintf(&b, "\nWould move (%d in all):\n", n)
		groups(&b, v.Moves)
	}

	if len(v.Kept) > 0 {
		fmt.Fprintf(&b, "\nWould keep %s of the %s contract, as documents:\n", plan.Plural(len(v.Kept), "default"), v.From)
		groups(&b, v.Kept)
	}

	if len(v.Stays) > 0 {
		fmt.Fprintf(&b, "\nWould stay where %s:\n", pick(len(v.Stays) == 1, "it is", "they are"))

		for _, s := range v.Stays {
			fmt.Fprintf(&b, "  %s (%s): %s\n", s.Path, places(s.Places), s.Reason)
		}
	}

	b.WriteString("\n")

	for _, r := range v.Refusals {
		fmt.Fprintf(&b, "%s: refused [%s] %s\n", migrate.Place(r.File, r.Line), r.Node, r.Msg)
	}

	switch {
	case len(v.Files) == 0:
		fmt.Fprintf(&b, "Nothing to migrate: the repository is in the layout of %s.\n", v.Target)
	case len(v.Refusals) > 0:
		fmt.Fprintf(&b, "Refused: %s (a setting a node would run differently, or a config that would not validate) across %s; migrate would write nothing.\n", plan.Plural(len(v.Refusals), "refusal"), plan.Plural(v.Nodes, "node"))
	default:
		fmt.Fprintf(&b, "Proof: all %s keep their effective settings. Would rewrite %s", plan.Plural(v.Nodes, "node"), plan.Plural(len(v.Files), "file"))

		if len(v.Added) > 0 {
			fmt.Fprintf(&b, " (adding %s)", strings.Join(v.Added, ", "))
		}

		b.WriteString("; run it without --check to write them.\n")
	}

	if v.Unpinned {
		b.WriteString("talops.yaml pins no configVersion, so the patches were read in the format of talosVersion's own release; if they were written for an older one, add configVersion with it, check it with talops validate, then migrate.\n")
	}

	_, err := io.WriteString(w, b.String())

	return err
}

// groups writes one aligned line per group: from → to, how many, where.
func groups(b *strings.Builder, gs []migrate.Group) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)

	for _, g := range gs {
		_, _ = fmt.Fprintf(tw, "  %s\t→ %s\t%d\t%s\n", g.From, g.To, g.Fields, places(g.Places)) // into a strings.Builder
	}

	_ = tw.Flush()
}

// places names the first maxPlaces places and counts the rest.
func places(ps []string) string {
	if len(ps) <= maxPlaces {
		return strings.Join(ps, ", ")
	}

	return strings.Join(ps[:maxPlaces], ", ") + fmt.Sprintf(" and %d more", len(ps)-maxPlaces)
}

func fields(gs []migrate.Group) int {
	n := 0
	for _, g := range gs {
		n += g.Fields
	}

	return n
}

func pick(cond bool, yes, no string) string {
	if cond {
		return yes
	}

	return no
}
