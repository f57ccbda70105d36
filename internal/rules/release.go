package rules

import (
	"fmt"
	"strings"
	"time"

	"github.com/talops/talops/internal/catalog"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/schematic"
)

// ReleaseLookup says what became of looking the cluster's Talos release up beyond the
// embedded release data. The zero value means nobody looked: the embedded data is all there is.
type ReleaseLookup struct {
	// Fetched: the release's extensions came from the Image Factory, in this run.
	Fetched bool
	// Source says where the release's data came from when the embedded extension data
	// lacks it ("": from that data, or nowhere).
	Source ReleaseSource
	// Factory is the Image Factory that listed the release, At when (factory and cache).
	Factory string
	At      time.Time
	// Derived says how a derived release was made (catalog.Release.Derived).
	Derived string
	// Unlisted: the Image Factory does not list the release among the versions it builds.
	Unlisted bool
	// Skipped says why the factory was not asked, or what went wrong asking it.
	Skipped string
	// Rejected says what of the factory's answer was refused (Skipped says the rest).
	Rejected bool
	// Contradictions are NVIDIA drivers the factory listed against the release facts this
	// build verified: the facts were used.
	Contradictions []catalog.Contradiction
}

// ReleaseSource is where the data of a release the embedded extension data lacks came from.
type ReleaseSource string

const (
	// SourceFactory is data listed by the Image Factory in this run (and kept in the cache).
	SourceFactory ReleaseSource = "factory"
	// SourceCache is data learnt from the Image Factory in an earlier run.
	SourceCache ReleaseSource = "cache"
	// SourceDerived is data derived from the minor's data and the release facts (offline).
	SourceDerived ReleaseSource = "derived"
)

// SchematicFile is a schematic talops.yaml names, with the line of each official extension.
type SchematicFile struct {
	// File is the display path of the schematic.
	File string
	// Extensions are the official extensions as written ("siderolabs/zfs").
	Extensions []string
	// Lines holds the line of each extension, index-aligned; 0 where unknown.
	Lines []int
	// Opaque says the file holds only the schematic's ID: its extensions are unknown, not
	// none.
	Opaque bool
}

// LoadSchematicFiles reads every schematic talops.yaml names. A schematic that does not load
// is left out: rendering reports it.
func LoadSchematicFiles(c *cluster.Cluster) map[string]*SchematicFile {
	out := map[string]*SchematicFile{}

	for name, entry := range c.Spec.Schematics {
		rel := entry.File
		data, _ := c.File(rel)

		if _, ok := schematic.Opaque(data); ok {
			out[name] = &SchematicFile{File: c.Path(rel), Opaque: true}

			continue
		}

		s, pos, err := schematic.LoadWithPositions(data)
		if err != nil {
			continue
		}

		out[name] = &SchematicFile{File: c.Path(rel), Extensions: s.Extensions(), Lines: pos.ExtensionLines(s)}
	}

	return out
}

// catalogOf returns the release data the rules judge against.
func catalogOf(in *Input) *catalog.Catalog {
	if in.Catalog != nil {
		return in.Catalog
	}

	return catalog.Embedded()
}

// schematicFiles returns the schematic files of the input, read from the cluster (once) when
// the caller did not.
func schematicFiles(in *Input) map[string]*SchematicFile {
	if in.SchematicFiles == nil {
		in.SchematicFiles = LoadSchematicFiles(in.Cluster)
	}

	return in.SchematicFiles
}

// release returns the data of the cluster's Talos release, if the catalog has it.
func release(in *Input) (catalog.Release, bool) {
	return catalogOf(in).Release(in.Cluster.Spec.TalosVersion)
}

// releaseData says where the facts about the cluster's release came from, when the embedded
// extension data lacks it: a result never silently depends on the network or on a guess.
func releaseData(in *Input) []finding.Finding {
	lk := in.Release
	if lk.Source == "" {
		return nil
	}

	c := in.Cluster
	talos := c.Spec.TalosVersion
	day := lk.At.UTC().Format(time.DateOnly)

	var msg string

	switch lk.Source {
	case SourceFactory:
		msg = fmt.Sprintf("Talos %s is not in this build's extension data: its extensions were listed by the Image Factory %s now (%s) and kept in the release cache", talos, lk.Factory, day)
	case SourceCache:
		msg = fmt.Sprintf("Talos %s is not in this build's extension data: its extensions come from the release cache, as the Image Factory %s listed them on %s", talos, lk.Factory, day)
	case SourceDerived:
		msg = fmt.Sprintf("Talos %s is not in this build's extension data (checked %s): derived from %s; image tags the derivation does not give are not checked", talos, catalog.EmbeddedFacts().Checked.Format(time.DateOnly), lk.Derived)

		// A guess about a release nobody told this build of comes after saying so (the
		// catalog in use holds the guess itself).
		if newest, beyond := catalog.Embedded().BeyondKnown(talos, catalog.EmbeddedFacts()); beyond {
			known := "no release of " + minorOf(talos) + " is known"
			if newest != "" {
				known = "newest known " + newest
			}

			msg = fmt.Sprintf("%s is not a release this talops knows (%s): ", talos, known) + msg
		}
		if lk.Skipped != "" {
			msg += fmt.Sprintf(" (%s: %s)", lk.factorySaid(), lk.Skipped)
		}

		msg += "; run online or `talops catalog update` for the release's own listing"
	default:
		return nil
	}

	if catalog.CompatibilitySource(talos) == "hand-kept" {
		msg += fmt.Sprintf("; the upgrade floor and Kubernetes range of %s are hand-kept until Talos machinery carries them", minorOf(talos))
	}

	out := []finding.Finding{{
		Severity: finding.Info, Code: CodeReleaseData,
		File: c.Path(cluster.FileName), Line: c.Line("talosVersion"), Path: "talosVersion", Message: msg,
	}}

	for _, x := range lk.Contradictions {
		out = append(out, finding.Finding{
			Severity: finding.Warning, Code: CodeFactoryContradicts,
			File: c.Path(cluster.FileName), Line: c.Line("talosVersion"), Path: "talosVersion",
			Message: fmt.Sprintf("the Image Factory %s lists the NVIDIA %s driver %s for Talos %s, where the release notes give %s: talops uses %s, the verified one", lk.Factory, x.Flavour, x.Listed, talos, x.Facts, x.Facts),
		})
	}

	return out
}

// factorySaid says whether the Image Factory was not asked or its answer was refused (why
// is Skipped).
func (lk ReleaseLookup) factorySaid() string {
	if lk.Rejected {
		return "the Image Factory's answer was rejected"
	}

	return "the Image Factory was not asked"
}

// minorOf is the minor of a Talos version ("v1.15.0" → "1.15"), or the version as given.
func minorOf(talos string) string {
	parts := strings.SplitN(strings.TrimPrefix(talos, "v"), ".", 3)
	if len(parts) < 2 {
		return talos
	}

	return parts[0] + "." + parts[1]
}
