package report

import (
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"

	template "github.com/DataDog/datadog-agent/pkg/template/text"

	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/rules"
)

// FormatMarkdown is the PR comment and job summary view.
const FormatMarkdown = "markdown"

// planOf is what a plan view shows.
type planOf struct {
	plan     *plan.Plan
	findings []finding.Finding
	nodes    int
	view     PlanView
}

var planViews = Views[planOf]{
	FormatText:     stringView(func(p planOf) string { return PlanText(p.plan, p.findings, p.nodes, p.view.Color) }),
	FormatJSON:     func(w io.Writer, p planOf) error { return PlanJSON(w, p.plan, p.findings) },
	FormatMarkdown: stringErrView(func(p planOf) (string, error) { return PlanMarkdown(p.plan, p.findings, p.nodes, p.view) }),
}

// PlanFormats lists the formats of plan.
var PlanFormats = planViews.Formats()

// CommentLimit is GitHub's limit on a comment body.
const CommentLimit = 65536

// SummaryLimit is GitHub's limit on a step summary.
const SummaryLimit = 1 << 20

// PlanView shapes how a plan is shown.
type PlanView struct {
	// Color uses ANSI colours in the text view (terminals only).
	Color bool
	// Version is talops' version, shown in the markdown footer.
	Version string
	// Limit bounds the markdown body (0: CommentLimit).
	Limit int
	// SummaryNote points readers of a cut comment at the full plan.
	SummaryNote string
	// Bump is the version bump between the two states, shown after the nodes when a
	// version, a GPU driver or an extension image moves (nil: none).
	Bump *rules.Bump
}

// WritePlan writes a plan in one format.
func WritePlan(w io.Writer, format string, p *plan.Plan, fs []finding.Finding, nodes int, v PlanView) error {
	return planViews.Write(w, format, planOf{p, fs, nodes, v})
}

// PlanJSON writes {"summary": {...}, "nodes": [...], "hash", "findings": [...]}.
func PlanJSON(w io.Writer, p *plan.Plan, fs []finding.Finding) error {
	counts := p.Count()

	summary := map[string]any{
		"line":       p.Summary(),
		"cluster":    p.Cluster,
		"nodes":      len(p.Nodes),
		"hasChanges": p.HasChanges(),
		// Tools tell "nothing changes" from "nothing was planned" without reading the line.
		"blocked": p.Blocked,
		// Nodes whose config changes shape only (nodes[].layoutOnly).
		"layoutOnly": p.LayoutOnly(),
	}

	for _, a := range plan.Actions {
		summary[string(a)] = counts[a]
	}

	// A copy: the view shows absent reasons as [], without touching the plan.
	nodes := append([]plan.Node{}, p.Nodes...)

	for i := range nodes {
		if nodes[i].Reasons == nil {
			nodes[i].Reasons = []string{}
		}
	}

	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")

	if fs == nil {
		fs = []finding.Finding{}
	}

	return enc.Encode(struct {
		Summary map[string]any `json:"summary"`
		Nodes   []plan.Node    `json:"nodes"`
		// Bootstrap names the control plane etcd is started on (a new cluster only).
		Bootstrap string `json:"bootstrap,omitempty"`
		// Kubernetes is the Kubernetes upgrade, step by step (when component images move).
		Kubernetes *plan.KubernetesUpgrade `json:"kubernetes,omitempty"`
		// Settings are the cluster's destinations that change.
		Settings []plan.SettingChange `json:"settings,omitempty"`
		// HealthChecks are what apply checks before each node and after the last.
		HealthChecks []string `json:"healthChecks,omitempty"`
		// Alerts are the Alertmanager gate and silences apply holds.
		Alerts []string `json:"alerts,omitempty"`
		// Maintenance is the change of the maintenance windows.
		Maintenance *plan.MaintenanceChange `json:"maintenance,omitempty"`
		// SecretValuesChanged are the files that set a secret value other than before.
		SecretValuesChanged []string `json:"secretValuesChanged,omitempty"`
		// ApplyOptions are the options talops.yaml declares that widen what apply does.
		ApplyOptions []string          `json:"applyOptions,omitempty"`
		Hash         string            `json:"hash"`
		Findings     []finding.Finding `json:"findings"`
	}{summary, nodes, p.Bootstrap, p.Kubernetes, p.Settings, p.HealthChecks, p.Alerts, p.Maintenance, p.SecretValuesChanged, p.ApplyOptions, p.Hash, fs})
}

// alertsText is the Alertmanager gate and silences a plan binds, for a terminal.
func alertsText(alerts []string) string {
	if len(alerts) == 0 {
		return ""
	}

	var b strings.Builder

	b.WriteString("alerts, before each node that changes:\n")

	for _, a := range alerts {
		b.WriteString("  " + a + "\n")
	}

	return b.String() + "\n"
}

// PlanText is the plan for a terminal.
func PlanText(p *plan.Plan, fs []finding.Finding, nodes int, color bool) string {
	c := colors(color)

	var b strings.Builder

	if len(p.Settings) > 0 {
		b.WriteString(c.wrap("33", "~") + " cluster settings: where apply sends credentials and fetches images\n")

		for _, s := range p.Settings {
			fmt.Fprintf(&b, "    %s\n", s)
		}

		b.WriteString("\n")
	}

	b.WriteString(boundText(p, c))

	for _, n := range p.Nodes {
		if !n.Changes() {
			continue
		}

		fmt.Fprintf(&b, "%s %s (%s): %s\n", c.symbol(n.Action), n.Name, n.Role, n.What())

		for _, r := range n.Reasons {
			fmt.Fprintf(&b, "    %s\n", r)
		}

		for _, line := range strings.SplitAfter(n.Diff, "\n") {
			if line == "" {
				continue
			}

			b.WriteString("    " + c.diffLine(line))
		}

		b.WriteString("\n")
	}

	b.WriteString(kubernetesText(p.Kubernetes, c))

	if len(p.HealthChecks) > 0 {
		b.WriteString("health checks, before each node that changes and after the last:\n")

		for _, h := range p.HealthChecks {
			b.WriteString(healthCheckText(h))
		}

		b.WriteString("\n")
	}

	b.WriteString(alertsText(p.Alerts))

	if len(fs) > 0 {
		b.WriteString(findingsBlock(fs, nodes))
	}

	b.WriteString(c.bold(p.Summary()) + "\n")

	// A blocked plan has none, nor one the door refused (a live plan of nothing read).
	if !p.Blocked && p.Hash != "" {
		b.WriteString("plan hash " + p.Hash + "\n")
	}

	return b.String()
}

func findingsBlock(fs []finding.Finding, nodes int) string {
	var b strings.Builder
	_ = FindingsText(&b, fs, nodes)

	return b.String() + "\n"
}

type palette bool

func colors(on bool) palette { return palette(on) }

func (p palette) wrap(code, s string) string {
	if !p {
		return s
	}

	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p palette) bold(s string) string { return p.wrap("1", s) }

func (p palette) symbol(a plan.Action) string {
	switch a {
	case plan.Create:
		return p.wrap("32", "+")
	case plan.Remove:
		return p.wrap("31", "-")
	case plan.Upgrade, plan.Reboot:
		return p.wrap("33", "!")
	case plan.Unknown:
		// Not "~", which reads as an update in place: nothing is known of this node.
		return p.wrap("35", "?")
	default:
		return p.wrap("33", "~")
	}
}

func (p palette) diffLine(line string) string {
	body := strings.TrimSuffix(line, "\n")

	switch {
	case strings.HasPrefix(body, "+++"), strings.HasPrefix(body, "---"):
		return p.bold(body) + "\n"
	case strings.HasPrefix(body, "+"):
		return p.wrap("32", body) + "\n"
	case strings.HasPrefix(body, "-"):
		return p.wrap("31", body) + "\n"
	case strings.HasPrefix(body, "@@"):
		return p.wrap("36", body) + "\n"
	default:
		return line
	}
}

//go:embed templates/*.tmpl
var templatesFS embed.FS

// planTemplates are parsed when a plan is first rendered as markdown, not at start-up:
// most commands never render one. The engine calls no methods (see the topf importer's
// render), so what a method answers reaches a template through a function (what).
var planTemplates = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").Funcs(template.FuncMap{
		"fence":         fence,
		"cell":          cell,
		"text":          text,
		"short":         func(s string) string { return s[:min(12, len(s))] },
		"what":          func(n nodeData) string { return n.What() },
		"check":         healthCheckMarkdown,
		"windows":       windows,
		"secretChanged": secretChanged,
	}).ParseFS(templatesFS, "templates/*.tmpl"))
})

// Marker is the hidden line that identifies a cluster's sticky comment.
func Marker(cluster string) string {
	return "<!-- talops:plan cluster=" + markerName(cluster) + " -->"
}

// markerName is a cluster's name as a marker holds it: a DNS-1123 label as it is, and
// any other byte percent-encoded, so that no name can end the marker's comment, break
// its line or make it the start of another cluster's marker.
func markerName(name string) string {
	var b strings.Builder

	for i := range len(name) {
		c := name[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}

	return b.String()
}

// HashMarker carries the reviewed plan's hash, so apply can check it.
func HashMarker(hash string) string {
	return "<!-- talops:plan-hash " + hash + " -->"
}

// hashLine finds a HashMarker line in a comment body.
var hashLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^<!-- talops:plan-hash ([0-9a-f]{64}) -->$`) })

// ParseHashMarker is the plan hash a comment body carries in its HashMarker line. talops
// writes that line once, right below the sticky marker: a body with it elsewhere, or more
// than once, carries no hash (a planted one is never trusted).
func ParseHashMarker(body string) (string, bool) {
	body = strings.ReplaceAll(body, "\r\n", "\n")

	if len(hashLine().FindAllStringIndex(body, 2)) != 1 {
		return "", false
	}

	lines := strings.SplitN(body, "\n", 3)
	if len(lines) < 2 {
		return "", false
	}

	m := hashLine().FindStringSubmatch(lines[1])
	if m == nil {
		return "", false
	}

	return m[1], true
}

// openDiffLines is the diff length up to which a node's details start open, and openNodes
// how many changes a comment may show before all of them start folded.
const (
	openDiffLines = 40
	openNodes     = 3
)

type planData struct {
	Plan       *plan.Plan
	Summary    string
	Marker     string
	HashMarker string
	Changed    []nodeData
	Disruptive []plan.Node
	// Findings is the findings table ("" without findings).
	Findings string
	Nodes    int
	Version  string
	Cut      bool
	Note     string
	// Compact lists nodes one per line (no diffs); Hidden counts nodes left out.
	Compact bool
	Hidden  int
	// Sections are shown after the nodes, before the findings.
	Sections []string
}

type nodeData struct {
	plan.Node
	Diff string
	Open bool
	// Label names the node, or every node that makes the same change (Same of them).
	Label string
	Same  int
}

// PlanMarkdown renders the PR comment / job summary. Diffs too long for the limit are
// cut in the middle, node by node, with a pointer to the job summary; when even that is
// too long the nodes are listed one per line. Findings that do not fit are counted (the
// list starts with the errors); it never fails for size.
func PlanMarkdown(p *plan.Plan, fs []finding.Finding, nodes int, v PlanView) (string, error) {
	limit := v.Limit
	if limit <= 0 {
		limit = CommentLimit
	}

	sections, err := v.sections()
	if err != nil {
		return "", err
	}

	// The Kubernetes upgrade is what applying does: it comes before the version tables.
	if k := kubernetesMarkdown(p.Kubernetes); k != "" {
		sections = append([]string{k}, sections...)
	}

	sh := shape{keep: -1, findings: len(fs), nodes: changedNodes(p), sections: true}

	for {
		s, err := renderPlanMarkdown(p, fs, nodes, v, sections, sh)
		if err != nil {
			return "", err
		}

		if len(s) < limit {
			return s, nil
		}

		// Give up what matters least first: most of a findings table that alone takes half
		// the room, the middle of long diffs, the diffs, the findings, the version tables,
		// and at last the list of nodes (the job summary has all of it).
		switch {
		case sh.findings > 0 && len(findingsMarkdown(fs, nodes, sh.findings, v.SummaryNote)) > limit/2:
			sh.findings /= 2
		case !sh.compact && sh.keep < 0:
			sh.keep = 400
		case !sh.compact && sh.keep > 10:
			sh.keep /= 2
		case !sh.compact:
			sh.compact = true
		case sh.findings > 0:
			sh.findings /= 2
		case sh.sections:
			sh.sections = false
		case sh.nodes > 0:
			sh.nodes = sh.nodes * 3 / 4
		default:
			return s, nil
		}
	}
}

// sections are the markdown sections shown after the nodes: the version bump, when
// something moves.
func (v PlanView) sections() ([]string, error) {
	if v.Bump == nil || !bumped(v.Bump) {
		return nil, nil
	}

	s, err := VersionsSection(v.Bump)
	if err != nil {
		return nil, err
	}

	return []string{s}, nil
}

// bumped reports whether a version, a GPU driver or an extension image moves.
func bumped(b *rules.Bump) bool {
	if b.Talos.Changed() || b.Kubernetes.Changed() || len(b.Extensions) > 0 {
		return true
	}

	return slices.ContainsFunc(b.GPUNodes, func(g rules.GPUChange) bool {
		return g.Driver.Changed() || g.Toolkit.Changed()
	})
}

// shape is how much of a plan a markdown body shows.
type shape struct {
	// keep is the diff lines kept per node (-1: all); compact lists nodes without diffs.
	keep    int
	compact bool
	// findings is how many findings are listed; nodes how many changed nodes a compact body lists.
	findings, nodes int
	sections        bool
}

func renderPlanMarkdown(p *plan.Plan, fs []finding.Finding, nodes int, v PlanView, sections []string, sh shape) (string, error) {
	d := planData{
		Plan:       p,
		Summary:    p.Summary(),
		Marker:     Marker(p.Cluster),
		HashMarker: HashMarker(p.Hash),
		Disruptive: p.Disruptive(),
		Nodes:      nodes,
		Version:    v.Version,
		Note:       v.SummaryNote,
		Compact:    sh.compact,
		Cut:        sh.compact,
	}

	if len(fs) > 0 {
		d.Findings = findingsMarkdown(fs, nodes, sh.findings, v.SummaryNote)
	}

	if sh.sections {
		d.Sections = sections
	}

	// Nodes that make the same change (a patch every worker takes) are shown once.
	groups := map[string]int{}

	for _, n := range p.Nodes {
		if !n.Changes() {
			continue
		}

		if sh.compact {
			if len(d.Changed) == sh.nodes {
				d.Hidden++
			} else {
				d.Changed = append(d.Changed, nodeData{Node: n})
			}

			continue
		}

		key := sameChange(n)
		if i, ok := groups[key]; ok && key != "" {
			d.Changed[i].Label += ", " + n.Name
			d.Changed[i].Same++

			continue
		}

		diff := n.Diff
		if sh.keep >= 0 {
			var cut bool
			if diff, cut = cutMiddle(diff, sh.keep, v.SummaryNote); cut {
				d.Cut = true
			}
		}

		groups[key] = len(d.Changed)
		d.Changed = append(d.Changed, nodeData{Node: n, Diff: diff, Label: n.Name, Same: 1})
	}

	openSmall(d.Changed)

	var b strings.Builder
	if err := planTemplates().ExecuteTemplate(&b, "plan.md.tmpl", d); err != nil {
		return "", fmt.Errorf("render plan: %w", err)
	}

	return b.String(), nil
}

// openSmall opens a few small changes; past a few nodes, or for a whole new config, a
// reviewer opens what they want to read.
func openSmall(changed []nodeData) {
	nodes := 0
	for _, c := range changed {
		nodes += c.Same
	}

	for i := range changed {
		c := &changed[i]
		c.Open = nodes <= openNodes && strings.Count(c.Diff, "\n") <= openDiffLines &&
			c.Action != plan.Create && c.Action != plan.Remove
	}
}

// changedNodes counts the nodes the plan shows.
func changedNodes(p *plan.Plan) int {
	n := 0

	for _, node := range p.Nodes {
		if node.Changes() {
			n++
		}
	}

	return n
}

// sameChange is what nodes must share to be shown as one change: role, action, reasons
// and diff ("" for changes never grouped: new and removed nodes, whose configs differ).
func sameChange(n plan.Node) string {
	if n.Action == plan.Create || n.Action == plan.Remove || n.Diff == "" {
		return ""
	}

	return strings.Join(append([]string{string(n.Role), n.What(), n.Diff}, n.Reasons...), "\x00")
}

// cutMiddle keeps the first and last keep/2 lines of a diff.
func cutMiddle(diff string, keep int, note string) (string, bool) {
	lines := strings.SplitAfter(diff, "\n")
	if len(lines) <= keep+1 {
		return diff, false
	}

	head, tail := keep/2, keep-keep/2
	cut := len(lines) - head - tail

	where := "the job summary"
	if note != "" {
		where = note
	}

	marker := fmt.Sprintf("… %d lines cut here: the full diff is in %s …\n", cut, where)

	return strings.Join(lines[:head], "") + marker + strings.Join(lines[len(lines)-tail:], ""), true
}

// fence returns a backtick fence longer than any backtick run in s.
func fence(s string) string {
	longest, run := 0, 0

	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}

	return strings.Repeat("`", max(3, longest+1))
}
