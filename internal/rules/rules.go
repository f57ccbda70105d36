// Package rules checks rendered nodes and the repository model and returns findings.
// Rules never print and never touch the network.
package rules

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/talops/talops/internal/catalog"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/secrets"
)

// Input is what the rules look at.
type Input struct {
	Cluster *cluster.Cluster
	Nodes   []render.Result
	Bundle  *secrets.Bundle
	// Strict turns warnings of machinery validation into errors, as talosctl validate --strict does.
	Strict bool
	// Schematics maps schematic names to their Image Factory IDs.
	Schematics map[string]string
	// Catalog is the release data extensions are judged against (nil: the embedded data).
	Catalog *catalog.Catalog
	// Release says how the cluster's release was looked up beyond the embedded data.
	Release ReleaseLookup
	// SchematicFiles are the schematics by name, with extension lines (nil: read from Cluster).
	SchematicFiles map[string]*SchematicFile

	// released holds the findings of releaseRules once computed: Check and a version
	// comparison (CompareVersions) both read them of the same state.
	released *[]finding.Finding
}

// A rule judges a state a chunk of nodes at a time, then once more when every node was
// judged: nodes adds what it finds in a chunk (Input.Nodes) to what it found before, and
// whole turns all of that into the rule's findings, with what needs every node (from the
// summary) or none. A nil part does nothing: a rule of the cluster alone has no nodes part,
// most rules of nodes no whole part. What a rule finds does not depend on how the nodes
// are cut into chunks (TestJudge_ChunksFindWhatTheWholeStateFinds).
type rule struct {
	nodes func(in *Input, s *summary, found []finding.Finding) []finding.Finding
	whole func(in *Input, s *summary, found []finding.Finding) []finding.Finding
}

// summary is what the rules keep of the nodes judged for what needs every node.
type summary struct {
	// schematics are those the rendered nodes boot.
	schematics map[string]bool
	// extensionsAsked says a rendered node asks for an extension.
	extensionsAsked bool
	// gpuNodes says a node (not opaque) has an NVIDIA kernel module.
	gpuNodes bool
	// devicePlugin is the NVIDIA device plugin deployed by the first node (in the state's
	// order, whatever the order of the chunks) that deploys it, placed; devicePluginAt is
	// that node's index.
	devicePlugin   *finding.Finding
	devicePluginAt int
}

// usedSchematics lists, sorted, the schematics at least one rendered node boots.
func (s *summary) usedSchematics() []string {
	return slices.Sorted(maps.Keys(s.schematics))
}

// ofNodes is a rule of each node on its own.
func ofNodes(check func(in *Input) []finding.Finding) rule {
	return rule{nodes: func(in *Input, _ *summary, found []finding.Finding) []finding.Finding {
		return append(found, check(in)...)
	}}
}

// ofCluster is a rule of the cluster, not of its nodes.
func ofCluster(check func(in *Input) []finding.Finding) rule {
	return rule{whole: func(in *Input, _ *summary, _ []finding.Finding) []finding.Finding { return check(in) }}
}

// releaseRules are the rules whose findings a release bump can add (releaseFindings): each
// lives in a file named after its codes.
var releaseRules = []rule{
	ofNodes(renderFailures),
	ofCluster(kubernetesSupport),
	{nodes: extensionAvailability, whole: extensionSchematics},
	{nodes: nvidiaRules, whole: nvidiaCluster},
}

// otherRules lists the other rules in the order they run, after releaseRules.
var otherRules = []rule{
	{nodes: machineryValidation, whole: machineryContract},
	ofCluster(releaseData),
	ofCluster(throwawaySecrets),
	ofNodes(installerMismatch),
	ofNodes(installerGHCRRemoved),
	ofNodes(installExtensionsDeprecated),
	ofCluster(schematicExtensions),
	ofCluster(controlPlanePresent),
	ofNodes(kernelArgsIgnored),
	ofNodes(controlPlaneRole),
	ofNodes(apiServerAuth),
	ofNodes(searchDomainsCleared),
	ofNodes(etcdKeyDropped),
}

// Check runs every rule and returns the findings sorted. It stops between rules when
// ctx is done, with ctx's error: nodes whose rendering was cancelled are not findings.
func Check(ctx context.Context, in *Input) ([]finding.Finding, error) {
	j := NewJudge(in)
	if err := j.Nodes(ctx, in.Nodes); err != nil {
		return nil, err
	}

	if in.released == nil {
		released := j.ReleaseFindings()
		in.released = &released
	}

	return j.Findings(), nil
}

// releaseRuleFindings are the findings of releaseRules, computed once per Input (which is
// not shared between goroutines while it is judged).
func (in *Input) releaseRuleFindings() []finding.Finding {
	if in.released == nil {
		j := newJudge(in, releaseRules)
		_ = j.Nodes(context.Background(), in.Nodes) // no context: it cannot be cancelled
		released := j.ReleaseFindings()
		in.released = &released
	}

	return *in.released
}

// A Judge judges a state a chunk of nodes at a time, so that a caller can render, judge
// and drop a chunk before the next one: it keeps findings and a summary, no node. What it
// finds is what Check finds over every node at once; with chunks in the state's node order,
// in the same order too.
type Judge struct {
	in    Input
	rules []rule
	sum   summary
	// found holds each rule's findings so far; whole holds its findings once every node
	// was judged (nil until then).
	found [][]finding.Finding
	whole [][]finding.Finding
}

// NewJudge starts judging the state in: its nodes are given to Nodes, not taken from in.
func NewJudge(in *Input) *Judge {
	return newJudge(in, slices.Concat(releaseRules, otherRules))
}

func newJudge(in *Input, rules []rule) *Judge {
	j := &Judge{in: *in, rules: rules, sum: summary{schematics: map[string]bool{}}, found: make([][]finding.Finding, len(rules))}
	j.in.Nodes, j.in.released = nil, nil

	return j
}

// Nodes judges a chunk of nodes, the next in the state's order. It stops between rules
// when ctx is done, with ctx's error.
func (j *Judge) Nodes(ctx context.Context, nodes []render.Result) error {
	j.in.Nodes = nodes
	defer func() { j.in.Nodes = nil }()

	for i, r := range j.rules {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("check the rendered nodes: %w", err)
		}

		if r.nodes != nil {
			j.found[i] = r.nodes(&j.in, &j.sum, j.found[i])
		}
	}

	return nil
}

// finish runs each rule's whole part, once.
func (j *Judge) finish() {
	if j.whole != nil {
		return
	}

	j.whole = make([][]finding.Finding, len(j.rules))

	for i, r := range j.rules {
		j.whole[i] = j.found[i]
		if r.whole != nil {
			j.whole[i] = r.whole(&j.in, &j.sum, j.found[i])
		}
	}
}

// Findings are every rule's findings over the nodes judged, sorted.
func (j *Judge) Findings() []finding.Finding {
	j.finish()

	out := slices.Concat(j.whole...)
	finding.Sort(out)

	return out
}

// ReleaseFindings are the findings of the release rules, in the order they ran.
func (j *Judge) ReleaseFindings() []finding.Finding {
	j.finish()

	return slices.Concat(j.whole[:len(releaseRules)]...)
}

// rendered yields the nodes that rendered.
func rendered(in *Input) []*render.Machine {
	var out []*render.Machine

	for _, r := range in.Nodes {
		if r.Err == nil && r.Machine != nil {
			out = append(out, r.Machine)
		}
	}

	return out
}

// renderFailures turns nodes that could not be rendered into placed findings.
func renderFailures(in *Input) []finding.Finding {
	var out []finding.Finding

	for _, r := range in.Nodes {
		if r.Err == nil {
			continue
		}

		for _, e := range cluster.Split(r.Err) {
			f := finding.Finding{Severity: finding.Error, Code: CodePatchInvalid, Message: e.Error(), Node: r.Name}

			var ie *cluster.InputError
			if errors.As(e, &ie) {
				f.File, f.Line, f.Path, f.Message = ie.File, ie.Line, ie.Field, ie.Msg
			} else {
				f.File, f.Line = in.Cluster.Path(cluster.FileName), in.Cluster.NodeLine(r.Name, "")
			}

			out = append(out, f)
		}
	}

	return out
}

// throwawaySecrets notes that secrets were generated for this run only.
func throwawaySecrets(in *Input) []finding.Finding {
	if in.Bundle == nil || !in.Bundle.Throwaway {
		return nil
	}

	f := finding.Finding{
		Severity: finding.Info,
		Code:     CodeSecretsThrowaway,
		Message:  "rendered with a throwaway secrets bundle: " + in.Bundle.Why + "; everything but the secrets themselves is exact",
		File:     in.Cluster.Path(cluster.FileName),
	}

	if in.Cluster.Spec.Secrets != "" {
		f.Line = in.Cluster.Line("secrets")
	}

	return []finding.Finding{f}
}
