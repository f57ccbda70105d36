// Package rules checks rendered nodes and the repository model and returns findings.
// Rules never print and never touch the network.
package rules

import (
	"context"
	"errors"
	"fmt"
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

// rule is one check over the whole input.
type rule func(in *Input) []finding.Finding

// releaseRules are the rules whose findings a release bump can add (releaseFindings): each
// lives in a file named after its codes.
var releaseRules = []rule{renderFailures, kubernetesSupport, extensionAvailability, nvidiaRules}

// all lists the other rules in the order they run, after releaseRules.
var all = []rule{
	machineryValidation,
	releaseData,
	throwawaySecrets,
	installerMismatch,
	installerGHCRRemoved,
	installExtensionsDeprecated,
	schematicExtensions,
	controlPlanePresent,
	kernelArgsIgnored,
	controlPlaneRole,
	apiServerAuth,
	searchDomainsCleared,
	etcdKeyDropped,
}

// Check runs every rule and returns the findings sorted. It stops between rules when
// ctx is done, with ctx's error: nodes whose rendering was cancelled are not findings.
func Check(ctx context.Context, in *Input) ([]finding.Finding, error) {
	out := slices.Clone(in.releaseRuleFindings())

	for _, r := range all {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("check the rendered nodes: %w", err)
		}

		out = append(out, r(in)...)
	}

	finding.Sort(out)

	return out, nil
}

// releaseRuleFindings are the findings of releaseRules, computed once per Input (which is
// not shared between goroutines while it is judged).
func (in *Input) releaseRuleFindings() []finding.Finding {
	if in.released == nil {
		var out []finding.Finding
		for _, r := range releaseRules {
			out = append(out, r(in)...)
		}

		in.released = &out
	}

	return *in.released
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
