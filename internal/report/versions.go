package report

import (
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	template "github.com/DataDog/datadog-agent/pkg/template/text"

	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/rules"
)

var versionViews = Views[*rules.Bump]{
	FormatText: stringView(VersionsText),
	FormatJSON: func(w io.Writer, b *rules.Bump) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")

		return enc.Encode(struct {
			Summary string `json:"summary"`
			*rules.Bump
		}{VersionsSummary(b), b})
	},
	FormatMarkdown: stringErrView(VersionsMarkdown),
}

// VersionFormats lists the formats of versions.
var VersionFormats = versionViews.Formats()

// WriteVersions writes a version bump in one format.
func WriteVersions(w io.Writer, format string, b *rules.Bump) error {
	return versionViews.Write(w, format, b)
}

// VersionsSummary is the closing line of versions, counted from the bump's findings.
func VersionsSummary(b *rules.Bump) string {
	e, wn, i := finding.Count(b.Findings)

	verdict := "ok"
	if e > 0 {
		verdict = "failed"
	}

	return fmt.Sprintf("versions %s: Talos %s, Kubernetes %s, %s, %s, %s, %s",
		verdict, bumpArrow(b.Talos), bumpArrow(b.Kubernetes), plan.Plural(len(b.GPUNodes), "GPU node"), plan.Plural(e, "error"), plan.Plural(wn, "warning"), plan.Plural(i, "note"))
}

func bumpArrow(c rules.Change) string {
	if !c.Changed() {
		return c.To
	}

	return bumpNone(c.From) + " → " + bumpNone(c.To)
}

func bumpNone(s string) string {
	if s == "" {
		return "none"
	}

	return s
}

// bumpTalosNote says what the Talos move is, for people.
func bumpTalosNote(b *rules.Bump) string {
	u := b.Upgrade

	switch {
	case u == nil && b.Talos.Changed():
		return "cannot be judged"
	case u == nil:
		return "unchanged"
	}

	note := u.Verdict
	if len(u.StepThrough) > 0 {
		note += ": step through " + strings.Join(u.StepThrough, ", ")
	}

	if u.Floor != "" {
		note += " (upgrades from " + u.Floor + " on)"
	}

	return note
}

func bumpKubernetesNote(b *rules.Bump) string {
	if b.KubernetesRange == "" {
		return ""
	}

	return "Talos " + b.Talos.To + " supports " + b.KubernetesRange
}

func bumpPinNote(g rules.GPUChange) string {
	switch {
	case g.Pin == "":
		return "—"
	case g.PinBroken:
		return "❌ " + g.Pin
	default:
		return "✅ " + g.Pin
	}
}

// VersionsText is the view for people.
func VersionsText(b *rules.Bump) string {
	var s strings.Builder

	fmt.Fprintf(&s, "Talos       %s  %s\n", bumpArrow(b.Talos), bumpTalosNote(b))
	fmt.Fprintf(&s, "Kubernetes  %s  %s\n", bumpArrow(b.Kubernetes), bumpKubernetesNote(b))

	if p := b.Path; p != nil {
		fmt.Fprintf(&s, "Path        %s\n", pathNote(p))

		for i, h := range p.Hops {
			fmt.Fprintf(&s, "  %d. %s", i+1, hopName(h))

			for _, d := range h.NVIDIA {
				fmt.Fprintf(&s, "  %s", hopDriverNote(d))
			}

			s.WriteString("\n")
		}
	}

	for _, g := range b.GPUNodes {
		flavour := gpuFlavour(g, "-")

		fmt.Fprintf(&s, "GPU %s  %s  driver %s  toolkit %s", g.Node, flavour, bumpArrow(g.Driver), bumpArrow(g.Toolkit))

		if g.Pin != "" {
			state := "holds"
			if g.PinBroken {
				state = "broken"
			}

			fmt.Fprintf(&s, "  pin %s %s", g.Pin, state)
		}

		s.WriteString("\n")
	}

	if m := b.PinMoved; m != nil {
		fmt.Fprintf(&s, "nvidia.driver %s → %s  the exact pin moves with the Talos release's driver: talops.yaml rewritten\n", m.From, m.To)
	}

	for _, e := range b.Extensions {
		to := e.Tag.To
		if e.Gone {
			to = "not published"
		}

		fmt.Fprintf(&s, "extension %s/%s  %s → %s\n", e.Schematic, e.Extension, bumpNone(e.Tag.From), bumpNone(to))
	}

	for _, f := range b.Findings {
		s.WriteString(place(f))
		fmt.Fprintf(&s, "%s %s", f.Severity, f.Code)

		if f.Node != "" {
			fmt.Fprintf(&s, " [%s]", f.Node)
		}

		if f.Path != "" {
			fmt.Fprintf(&s, " %s:", f.Path)
		}

		s.WriteString(" " + oneLine(f.Message) + "\n")
	}

	s.WriteString(VersionsSummary(b) + "\n")

	return s.String()
}

//go:embed templates/versions/*.tmpl
var versionsFS embed.FS

// versionsTemplates are parsed when a versions report is first rendered as markdown, not
// at start-up: most commands never render one.
var versionsTemplates = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").Funcs(template.FuncMap{
		"cell":    cell,
		"text":    text,
		"icon":    icon,
		"plural":  plan.Plural,
		"flavour": func(g rules.GPUChange) string { return gpuFlavour(g, "—") },
		"move": func(c rules.Change) string {
			if !c.Changed() {
				return cell(bumpNone(c.To))
			}

			if c.To == rules.UnknownVersion {
				// Unknown is not a change to point at.
				return cell(bumpNone(c.From)) + " → " + cell(c.To)
			}

			return cell(bumpNone(c.From)) + " → **" + cell(bumpNone(c.To)) + "**"
		},
		"pin":       bumpPinNote,
		"pathNote":  pathNote,
		"hopName":   hopName,
		"hopDriver": hopDriverNote,
		"inc":       func(i int) int { return i + 1 },
		"where": func(f finding.Finding) string {
			w := f.File
			if f.Line > 0 {
				w += ":" + strconv.Itoa(f.Line)
			}

			return cell(w)
		},
		"message": messageCell,
	}).ParseFS(versionsFS, "templates/versions/*.tmpl"))
})

// VersionsMarkdown is the view for the PR comment and the job summary.
func VersionsMarkdown(b *rules.Bump) (string, error) {
	return versionsMarkdown(b, false)
}

// VersionsSection is the bump as a section of another view (the plan): its tables,
// without a summary line or findings, which that view lists itself.
func VersionsSection(b *rules.Bump) (string, error) {
	return versionsMarkdown(b, true)
}

func versionsMarkdown(b *rules.Bump, section bool) (string, error) {
	gone := 0

	for _, e := range b.Extensions {
		if e.Gone {
			gone++
		}
	}

	data := struct {
		Bump                      *rules.Bump
		Summary                   string
		TalosNote, KubernetesNote string
		Gone                      int
		Section                   bool
	}{b, VersionsSummary(b), bumpTalosNote(b), bumpKubernetesNote(b), gone, section}

	var s strings.Builder
	if err := versionsTemplates().ExecuteTemplate(&s, "versions.md.tmpl", data); err != nil {
		return "", fmt.Errorf("render versions markdown: %w", err)
	}

	return s.String(), nil
}

// pathNote says how long a path is: its hops, reboots and rough duration.
func pathNote(p *rules.Path) string {
	return fmt.Sprintf("%s, %s per node, about %s", plan.Plural(len(p.Hops), "hop"), plan.Plural(p.RebootsPerNode, "reboot"), plan.Plural(p.Minutes, "minute"))
}

func hopName(h rules.PathHop) string {
	if h.Talos != "" {
		return "Talos " + h.Talos
	}

	return "Kubernetes " + h.Kubernetes
}

// hopDriverNote is a track's driver at a Talos hop, with the module the Image Factory swaps in.
func hopDriverNote(d rules.HopDriver) string {
	note := "NVIDIA " + d.Flavour + " " + d.Driver
	if d.Toolkit != "" {
		note += " (toolkit " + d.Toolkit + ")"
	}

	if d.OpenModule != "" {
		note += ", the Image Factory puts " + d.OpenModule + " in place of the proprietary module"
	}

	return note
}

// gpuFlavour is a GPU node's track, with the switch when the bump makes one.
func gpuFlavour(g rules.GPUChange, none string) string {
	to := g.Flavour
	if to == "" {
		to = none
	}

	if g.FlavourFrom != "" {
		return g.FlavourFrom + " → " + to
	}

	return to
}
