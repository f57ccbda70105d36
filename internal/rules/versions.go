package rules

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/talops/talops/internal/catalog"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/render"
)

// kubernetesSupport judges the Kubernetes version against the cluster's Talos release (not
// against the Talos release this tool was built with), and says when talosVersion is no
// release at all.
func kubernetesSupport(in *Input) []finding.Finding {
	c := in.Cluster
	file := c.Path(cluster.FileName)

	talosAt := func(msg string) []finding.Finding {
		return []finding.Finding{{
			Severity: finding.Error, Code: CodeUnknownRelease, File: file, Line: c.Line("talosVersion"), Path: "talosVersion", Message: msg,
		}}
	}

	k8sAt := func(msg string) []finding.Finding {
		return []finding.Finding{{
			Severity: finding.Error, Code: CodeK8sUnsupported, File: file, Line: c.Line("kubernetesVersion"), Path: "kubernetesVersion", Message: msg,
		}}
	}

	if in.Release.Unlisted {
		return talosAt(fmt.Sprintf("Talos %s is not among the releases the Image Factory builds", c.Spec.TalosVersion))
	}

	err := catalog.CheckKubernetes(c.Spec.TalosVersion, c.Spec.KubernetesVersion)

	var (
		ve *catalog.VersionError
		ue *catalog.UnknownTalosError
		ke *catalog.KubernetesError
	)

	switch {
	case err == nil:
		return nil
	case errors.As(err, &ve) && ve.What == "Talos":
		return talosAt(fmt.Sprintf("talosVersion %s is not a Talos release", c.Spec.TalosVersion))
	case errors.As(err, &ve):
		return k8sAt(fmt.Sprintf("kubernetesVersion %s is not a Kubernetes version", c.Spec.KubernetesVersion))
	case errors.As(err, &ue):
		return talosAt(fmt.Sprintf("Talos %s is newer than the releases this talops knows; upgrade talops", c.Spec.TalosVersion))
	case errors.As(err, &ke):
		return k8sAt(ke.Error() + "; pick a version in range or change talosVersion")
	default:
		return k8sAt(err.Error())
	}
}

// Change is a value before and after.
type Change struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Changed reports whether the value moved.
func (c Change) Changed() bool { return c.From != c.To }

// Upgrade is the verdict on a Talos version change.
type Upgrade struct {
	// Verdict is the kind of move: ok, skips-minor, below-floor, denied-host,
	// downgrade-across-minor, patch-downgrade.
	Verdict string `json:"verdict"`
	Message string `json:"message"`
	// Floor is the target's minimum host version.
	Floor string `json:"floor,omitempty"`
	// StepThrough lists the latest patch of each skipped minor: the releases to upgrade through.
	StepThrough []string `json:"stepThrough,omitempty"`
}

// GPUChange is how a GPU node's NVIDIA driver moves.
type GPUChange struct {
	Node    string `json:"node"`
	Flavour string `json:"flavour,omitempty"`
	// FlavourFrom is the node's flavour before, when the bump switches it (lts ↔ production).
	FlavourFrom string `json:"flavourFrom,omitempty"`
	// Driver and Toolkit are "" on the side where they are unknown (no GPU then, or no data).
	Driver  Change `json:"driver"`
	Toolkit Change `json:"toolkit"`
	// Pin is nvidia.driver of the head state, and PinBroken whether the head driver misses it.
	Pin       string `json:"pin,omitempty"`
	PinBroken bool   `json:"pinBroken,omitempty"`
}

// ExtensionChange is a schematic extension whose image moves with the bump.
type ExtensionChange struct {
	Schematic string `json:"schematic"`
	Extension string `json:"extension"`
	// Tag is the image tag before and after; To is "" when the head release does not publish it.
	Tag  Change `json:"tag"`
	Gone bool   `json:"gone,omitempty"`
}

// Bump is what a change of versions between two states of a repository means: the view a
// reviewer of a version bump needs. Findings are the bump's own, plus what the head state
// breaks that the base state did not.
type Bump struct {
	Talos      Change   `json:"talos"`
	Upgrade    *Upgrade `json:"upgrade,omitempty"`
	Kubernetes Change   `json:"kubernetes"`
	// KubernetesRange is what the head release supports ("1.31.0 to 1.36.x").
	KubernetesRange string `json:"kubernetesRange,omitempty"`
	// Path is the way there when it takes more than one safe hop.
	Path       *Path             `json:"path,omitempty"`
	GPUNodes   []GPUChange       `json:"gpuNodes,omitempty"`
	Extensions []ExtensionChange `json:"extensions,omitempty"`
	// PinMoved is the exact nvidia.driver pin talops moved to the head release's driver in
	// talops.yaml (PinMove), when it was asked to; the rest of the bump is of the file as
	// it is after the move.
	PinMoved *Change           `json:"pinMoved,omitempty"`
	Findings []finding.Finding `json:"findings"`
}

// CompareVersions explains the move from base to head. Both inputs describe the same
// repository directory.
func CompareVersions(base, head *Input) *Bump {
	c := NewComparison(base, head)
	c.Nodes(base.Nodes, head.Nodes)

	return c.Bump(base.releaseRuleFindings(), head.releaseRuleFindings())
}

// A Comparison explains a move of versions a chunk of nodes at a time, as CompareVersions
// does over every node: it keeps what the bump says of each node, no node.
type Comparison struct {
	base, head Input
	talos      Change
	gpus       []GPUChange
	// nodes counts the head's nodes, tracks are the NVIDIA tracks its GPU nodes run: what
	// the upgrade path needs of them.
	nodes   int
	tracks  []gpuTrack
	drivers []finding.Finding
	// fabric are the head nodes with the LTS fabric manager (nriMove).
	fabric []string
	// schematics are those the head's rendered nodes boot.
	schematics map[string]bool
}

// NewComparison starts comparing base with head: their nodes are given to Nodes.
func NewComparison(base, head *Input) *Comparison {
	c := &Comparison{
		base: *base, head: *head, schematics: map[string]bool{},
		talos: Change{base.Cluster.Spec.TalosVersion, head.Cluster.Spec.TalosVersion},
	}
	c.base.Nodes, c.head.Nodes, c.base.released, c.head.released = nil, nil, nil, nil

	return c
}

// Nodes compares a chunk: the head's next nodes in its order, and the base's nodes of the
// same names (those the base has).
func (c *Comparison) Nodes(base, head []render.Result) {
	c.base.Nodes, c.head.Nodes = base, head
	defer func() { c.base.Nodes, c.head.Nodes = nil, nil }()

	gpus, fs, tracks := driverMoves(&c.base, &c.head, c.talos, c.tracks)
	c.nodes += len(head)
	c.tracks = tracks

	c.gpus = append(c.gpus, gpus...)
	c.drivers = append(c.drivers, fs...)
	if ontoNRI(c.talos) {
		c.fabric = append(c.fabric, fabricNodes(&c.head)...)
	}

	for _, n := range rendered(&c.head) {
		if s := n.Node.Schematic; s != "" {
			c.schematics[s] = true
		}
	}
}

// Bump is the bump once every node was compared, with each state's release findings (the
// Judge's ReleaseFindings).
func (c *Comparison) Bump(baseReleased, headReleased []finding.Finding) *Bump {
	base, head := &c.base, &c.head

	b := &Bump{
		Talos:      c.talos,
		Kubernetes: Change{base.Cluster.Spec.KubernetesVersion, head.Cluster.Spec.KubernetesVersion},
		Findings:   []finding.Finding{},
	}

	if lo, hi, err := catalog.KubernetesRange(b.Talos.To); err == nil {
		b.KubernetesRange = lo + " to " + hi + ".x"
	}

	b.Upgrade, b.Findings = talosMove(head, b.Talos)
	b.Findings = append(b.Findings, kubernetesMove(head, b.Kubernetes)...)
	b.Path = upgradePath(head, b.Talos, b.Kubernetes, c.nodes, c.tracks)
	withPath(b.Findings, b.Path)

	b.GPUNodes = slices.Clone(c.gpus)
	b.Findings = append(b.Findings, c.drivers...)
	b.Extensions = extensionMoves(base, head, slices.Sorted(maps.Keys(c.schematics)))
	b.Findings = append(b.Findings, cdiMove(head, b.Talos, len(c.gpus) > 0)...)
	b.Findings = append(b.Findings, nriMove(head, b.Talos, c.gpus, c.fabric)...)
	b.Findings = append(b.Findings, releaseData(head)...)
	b.Findings = append(b.Findings, contractMove(base, head)...)
	b.Findings = append(b.Findings, destinationMoves(base, head)...)
	b.Findings = append(b.Findings, newFindings(base, head, baseReleased, headReleased)...)

	finding.Sort(b.Findings)

	return b
}

func talosLine(in *Input) (string, int) {
	return in.Cluster.Path(cluster.FileName), in.Cluster.Line("talosVersion")
}

func talosMove(head *Input, t Change) (*Upgrade, []finding.Finding) {
	if !t.Changed() {
		return nil, nil
	}

	file, line := talosLine(head)
	at := func(sev finding.Severity, code, msg string) []finding.Finding {
		return []finding.Finding{{Severity: sev, Code: code, Message: msg, File: file, Line: line, Path: "talosVersion"}}
	}

	v, err := catalog.CanUpgrade(t.From, t.To)
	if err != nil {
		return nil, nil // a version that is no release: kubernetesSupport reports it for its state
	}

	u := &Upgrade{Verdict: v.Kind.String(), Message: v.Message(), Floor: v.Floor}

	for _, minor := range v.Skipped {
		if tag, ok := catalogOf(head).NewestKnownPatch(minor, catalog.EmbeddedFacts()); ok {
			u.StepThrough = append(u.StepThrough, tag)
		}
	}

	msg := v.Message()
	if len(u.StepThrough) > 0 {
		msg += " (" + strings.Join(u.StepThrough, ", ") + ")"
	}

	switch v.Kind {
	case catalog.UpgradeSkipsMinor:
		return u, at(finding.Warning, CodeUpgradeSkipsMinor, msg)
	case catalog.UpgradeBelowFloor, catalog.UpgradeDeniedHost:
		return u, at(finding.Error, CodeUpgradeUnsupported, msg)
	case catalog.UpgradeDowngradeAcrossMinor:
		return u, at(finding.Error, CodeDowngrade, msg+": Talos cannot roll back across minor releases")
	case catalog.UpgradePatchDowngrade:
		return u, at(finding.Warning, CodeDowngrade, msg)
	default:
		return u, nil
	}
}

func kubernetesMove(head *Input, k Change) []finding.Finding {
	if !k.Changed() {
		return nil
	}

	c := head.Cluster
	at := func(sev finding.Severity, code, msg string) []finding.Finding {
		return []finding.Finding{{
			Severity: sev, Code: code, Message: msg,
			File: c.Path(cluster.FileName), Line: c.Line("kubernetesVersion"), Path: "kubernetesVersion",
		}}
	}

	minors, cmp, err := catalog.KubernetesMove(k.From, k.To)

	switch {
	case err != nil:
		return at(finding.Error, CodeK8sUnsupported, err.Error())
	case minors > 1:
		return at(finding.Error, CodeK8sSkipsMinor, fmt.Sprintf("Kubernetes %s → %s crosses %d minor releases: Kubernetes upgrades one minor at a time (talosctl upgrade-k8s refuses more)", k.From, k.To, minors))
	case minors < 0:
		back := "a minor release"
		if minors < -1 {
			back = fmt.Sprintf("%d minor releases", -minors)
		}

		return at(finding.Error, CodeK8sDowngrade, fmt.Sprintf("Kubernetes %s → %s goes back %s, which Kubernetes does not support", k.From, k.To, back))
	case cmp < 0:
		return at(finding.Warning, CodeK8sDowngrade, fmt.Sprintf("Kubernetes %s → %s goes back to an older patch release", k.From, k.To))
	default:
		return nil
	}
}

// driverMoves lists the NVIDIA driver of every GPU node of the head state, before and after,
// and adds the tracks those nodes run to tracks (what the upgrade path shows at each hop).
func driverMoves(base, head *Input, t Change, tracks []gpuTrack) ([]GPUChange, []finding.Finding, []gpuTrack) {
	before := map[string]gpuSetup{}
	baseTalos := talosOf(base)

	for _, n := range rendered(base) {
		before[n.Node.Name] = nodeGPU(base, baseTalos, n)
	}

	var (
		out []GPUChange
		fs  []finding.Finding
	)

	headTalos := talosOf(head)

	for _, n := range rendered(head) {
		g := nodeGPU(head, headTalos, n)
		tracks = addTrack(tracks, g)

		if len(g.kmods()) == 0 {
			continue
		}

		ch := gpuChange(head, headTalos, g, before[n.Node.Name], n.Node.Name)
		out = append(out, ch)

		if f, ok := driverFinding(head, g, ch, t); ok {
			fs = append(fs, f)
		}
	}

	return out, fs, tracks
}

// gpuChange is what a GPU node's driver does between the two states (before: its setup in
// the base), and whether the new driver breaks talops.yaml's pin.
func gpuChange(head *Input, headTalos clusterTalos, g, before gpuSetup, node string) GPUChange {
	ch := GPUChange{Node: node, Flavour: string(g.kmods()[0].flavour)}

	// A GPU node whose driver the release data does not give has an unknown driver,
	// not none: the data is missing, the driver is not removed.
	if k, tk, ok := g.nodeDriver(); ok {
		ch.Driver.To, ch.Toolkit.To = k.driver, tk
	} else {
		ch.Driver.To, ch.Toolkit.To = UnknownVersion, UnknownVersion
	}

	if k, tk, ok := before.nodeDriver(); ok {
		ch.Driver.From, ch.Toolkit.From = k.driver, tk
	} else if len(before.kmods()) > 0 {
		ch.Driver.From, ch.Toolkit.From = UnknownVersion, UnknownVersion
	}

	if old := before.kmods(); len(old) > 0 && string(old[0].flavour) != ch.Flavour {
		ch.FlavourFrom = string(old[0].flavour)
	}

	if nv := head.Cluster.Spec.NVIDIA; nv != nil && nv.Driver != "" {
		ch.Pin = nv.Driver

		if _, valid := catalog.DriverBranch(ch.Driver.To); valid {
			ch.PinBroken = !catalog.DriverMatchesPin(ch.Driver.To, nv.Driver)
		} else if branch, broken := pinnedBranch(headTalos.talos, g.kmods()[0].flavour, nv.Driver); broken {
			// The driver is unknown, its branch is not: a track that changes branch
			// breaks the pin whatever the patch release.
			ch.PinBroken = true
			ch.Driver.To = branch + ".x"
		}
	}

	return ch
}

// driverFinding says what a GPU node's driver move means: a broken pin is an error, a
// known driver that changes a note (with a word when its branch changes).
func driverFinding(head *Input, g gpuSetup, ch GPUChange, t Change) (finding.Finding, bool) {
	c := head.Cluster

	toolkit := noneIfEmpty(ch.Toolkit.To) + " (unchanged)"
	if ch.Toolkit.Changed() {
		toolkit = noneIfEmpty(ch.Toolkit.From) + " → " + noneIfEmpty(ch.Toolkit.To)
	}

	move := fmt.Sprintf("NVIDIA driver %s → %s (%s), container toolkit %s", noneIfEmpty(ch.Driver.From), noneIfEmpty(ch.Driver.To), ch.Flavour, toolkit)
	if t.Changed() {
		move = fmt.Sprintf("Talos %s → %s moves the ", t.From, t.To) + move
	}

	switch {
	case ch.PinBroken:
		return finding.Finding{
			Severity: finding.Error, Code: CodeNvidiaDriverPin, Node: ch.Node,
			File: c.Path(cluster.FileName), Line: c.Line("nvidia.driver"), Path: "nvidia.driver",
			Message: fmt.Sprintf("%s, but nvidia.driver pins %s: keep the Talos release whose driver matches, switch nvidia.flavour, or move the pin deliberately", move, ch.Pin),
		}, true
	case known(ch.Driver.From) && known(ch.Driver.To) && ch.Driver.Changed():
		file, line := talosLine(head)
		if !t.Changed() {
			k := g.kmods()[0]
			file, line = k.file, k.line
		}

		msg := move
		if b1, _ := catalog.DriverBranch(ch.Driver.From); b1 != "" {
			if b2, _ := catalog.DriverBranch(ch.Driver.To); b2 != b1 {
				msg += fmt.Sprintf(": a new driver branch (%s → %s), check that it still supports the node's GPU", b1, b2)
			}
		}

		return finding.Finding{Severity: finding.Info, Code: CodeNvidiaDriverChanged, Node: ch.Node, File: file, Line: line, Message: msg}, true
	}

	return finding.Finding{}, false
}

// UnknownVersion stands for a version the release data does not give (a release talops has
// no data for, checked offline): it is not known, which is not "none".
const UnknownVersion = "unknown (no release data)"

func known(v string) bool { return v != "" && v != UnknownVersion }

func noneIfEmpty(s string) string {
	if s == "" {
		return "none"
	}

	return s
}

// extensionMoves lists the schematic extensions of the head state whose image changes with
// the bump, or which the head release no longer publishes.
func extensionMoves(base, head *Input, used []string) []ExtensionChange {
	rb, okb := release(base)
	rh, okh := release(head)

	if !okb || !okh {
		return nil
	}

	var out []ExtensionChange

	files := schematicFiles(head)

	for _, s := range used {
		sf, ok := files[s]
		if !ok {
			continue
		}

		for _, e := range sf.Extensions {
			name, _, ok := catalog.ParseExtensionRef(e)
			if !ok {
				continue
			}

			from, fromKnown := resolvedTag(base, rb, name)
			to, toKnown := resolvedTag(head, rh, name)

			// A derived release knows a name without its tag: the move is not known.
			if from == to || !fromKnown || !toKnown {
				continue
			}

			out = append(out, ExtensionChange{Schematic: s, Extension: name, Tag: Change{from, to}, Gone: from != "" && to == ""})
		}
	}

	return out
}

// resolvedTag is the image tag a schematic entry gets on a release, following the factory's
// aliases; "" when the release has none. known is false when the release publishes the
// extension with a tag the data does not give (a derived release).
func resolvedTag(in *Input, r catalog.Release, name string) (tag string, known bool) {
	if r.Has(name) {
		return r.ImageTag(name)
	}

	if a, ok := catalogOf(in).Rename(name, r.Tag()); ok && a.Kind == catalog.AliasFactory {
		return r.ImageTag(a.To)
	}

	return "", true
}

// cdiMove warns when a bump crosses Talos 1.13 with GPU nodes: the GPU setup must change first.
func cdiMove(head *Input, t Change, gpuNodes bool) []finding.Finding {
	if !gpuNodes || !t.Changed() || atLeast(t.From, "1.13") || !atLeast(t.To, "1.13") {
		return nil
	}

	file, line := talosLine(head)

	return []finding.Finding{{
		Severity: finding.Warning, Code: CodeNvidiaCDISetup, File: file, Line: line, Path: "talosVersion",
		Message: cdiAdvice(t.To) + "; do it before the GPU nodes upgrade",
	}}
}

// releaseFindings are the findings of a state that depend on its release (released, the
// release rules' findings), but the driver pin, which the bump reports with the drivers
// before and after; and the nodes that do not render, which drop out of every comparison.
func releaseFindings(released []finding.Finding) []finding.Finding {
	var out []finding.Finding

	for _, f := range released {
		if f.Code != CodeNvidiaDriverPin {
			out = append(out, f)
		}
	}

	return out
}

// newFindings returns the head findings the base state did not have, matched by code, node,
// file (relative to the repository, which may sit elsewhere for the base) and config path;
// messages name the versions, so they differ. Findings without a path (schematic entries)
// are told apart by line.
func newFindings(base, head *Input, baseReleased, headReleased []finding.Finding) []finding.Finding {
	type key struct {
		code, node, file, path string
		line                   int
	}

	keyOf := func(in *Input, f finding.Finding) key {
		k := key{code: f.Code, node: f.Node, file: repoRelative(in.Cluster, f.File), path: f.Path}
		if f.Path == "" {
			k.line = f.Line
		}

		return k
	}

	seen := map[key]int{}
	for _, f := range releaseFindings(baseReleased) {
		seen[keyOf(base, f)]++
	}

	var out []finding.Finding

	for _, f := range releaseFindings(headReleased) {
		k := keyOf(head, f)
		if seen[k] > 0 {
			seen[k]--

			continue
		}

		out = append(out, f)
	}

	return out
}

// repoRelative turns a display path back into the path inside the repository.
func repoRelative(c *cluster.Cluster, file string) string {
	if c.Dir == "" || c.Dir == "." {
		return file
	}

	return strings.TrimPrefix(file, filepath.ToSlash(filepath.Clean(c.Dir))+"/")
}
