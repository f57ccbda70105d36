package rules

import (
	"fmt"
	"strconv"

	"github.com/talops/talops/internal/catalog"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/render"
)

// pathInstallExtensions is where a v1alpha1 config lists extension images.
const pathInstallExtensions = "machine.install.extensions"

// requested is one official extension a node asks for, and where it asks.
type requested struct {
	name string // bare name
	// tag is the explicit image tag of machine.install.extensions; "" for a schematic entry,
	// whose tag the factory picks for the release.
	tag       string
	as        string // as written, for messages
	schematic string // the schematic listing it; "" for an explicit image
	file      string
	line      int
	path      string // the config path of an explicit image
}

func (r requested) explicit() bool { return r.schematic == "" }

// opaqueNode says the node boots an opaque schematic: what it carries is unknown, so the
// checks of its extensions cannot tell a missing one from one talops does not see.
func opaqueNode(in *Input, n *render.Machine) bool {
	sf, ok := schematicFiles(in)[n.Node.Schematic]

	return ok && sf.Opaque
}

// requestedExtensions lists a node's official extensions: its schematic's, then the images
// of machine.install.extensions. Images outside ghcr.io/siderolabs are not judged.
func requestedExtensions(in *Input, n *render.Machine) []requested {
	var out []requested

	if sf, ok := schematicFiles(in)[n.Node.Schematic]; ok {
		for i, e := range sf.Extensions {
			name, _, ok := catalog.ParseExtensionRef(e)
			if !ok {
				continue
			}

			out = append(out, requested{name: name, as: e, schematic: n.Node.Schematic, file: sf.File, line: sf.Lines[i]})
		}
	}

	images := installImages(n)
	places := installImagePlaces(in.Cluster, n, len(images))

	for i, img := range images {
		name, tag, ok := catalog.ParseExtensionRef(img)
		if !ok || !isImage(img) {
			continue
		}

		out = append(out, requested{
			name: name, tag: tag, as: img, file: places[i].file, line: places[i].line,
			path: pathInstallExtensions + "[" + strconv.Itoa(i) + "].image",
		})
	}

	return out
}

// isImage tells an image reference from a bare name, which install.extensions cannot use.
func isImage(s string) bool {
	name, _, _ := catalog.ParseExtensionRef(s)

	return s != name && s != catalog.SchematicName(name)
}

func installImages(n *render.Machine) []string {
	raw := n.Config.RawV1Alpha1()
	if raw == nil || raw.MachineConfig == nil || raw.MachineConfig.MachineInstall == nil { //nolint:staticcheck // configs before 1.10 list extensions there
		return nil
	}

	var out []string
	for _, e := range raw.MachineConfig.MachineInstall.InstallExtensions { //nolint:staticcheck // configs before 1.10 list extensions there
		out = append(out, e.ExtensionImage)
	}

	return out
}

type spot struct {
	file string
	line int
}

// installImagePlaces finds the line of each install extension image. Patches append to the
// list, so when the patches' items add up to the final list they map in order; otherwise
// every image points at the last patch that touched the list.
func installImagePlaces(c *cluster.Cluster, n *render.Machine, count int) []spot {
	var found []spot

	for _, l := range n.Layers {
		d := l.Index.Find("", "")
		if d < 0 {
			continue
		}

		for i := 0; ; i++ {
			line, exact := l.Index.Docs[d].Nearest(pathInstallExtensions + "[" + strconv.Itoa(i) + "].image")
			if !exact {
				break
			}

			found = append(found, spot{l.File, line})
		}
	}

	if len(found) == count {
		return found
	}

	file, line := place(c, n, pathInstallExtensions)
	out := make([]spot, count)

	for i := range out {
		out[i] = spot{file, line}
	}

	return out
}

// extensionAvailability reports extensions the cluster's Talos release does not publish:
// per schematic for schematic entries, per node for explicit images. This is its part
// over a chunk of nodes (the explicit images, and which schematics the nodes boot);
// extensionSchematics adds the schematic entries once every node was judged.
func extensionAvailability(in *Input, s *summary, out []finding.Finding) []finding.Finding {
	r, ok := release(in)
	cat, talos := catalogOf(in), r.Tag()

	for _, n := range rendered(in) {
		if sch := n.Node.Schematic; sch != "" {
			s.schematics[sch] = true
		}

		if !ok {
			// Without the release only whether anything was asked matters.
			s.extensionsAsked = s.extensionsAsked || len(requestedExtensions(in, n)) > 0

			continue
		}

		for _, req := range requestedExtensions(in, n) {
			if !req.explicit() || nvidiaSaysIt(talos, req.name) {
				continue
			}

			if msg := unavailableImage(cat, r, req); msg != "" {
				out = append(out, finding.Finding{
					Severity: finding.Error, Code: CodeExtensionUnavailable, Message: msg,
					File: req.file, Line: req.line, Node: n.Node.Name, Path: req.path,
				})
			}
		}
	}

	return out
}

// extensionSchematics puts the schematic entries the release does not publish before what
// extensionAvailability found over the nodes; without the release's data, it is one
// warning that nothing was checked, when anything was asked.
func extensionSchematics(in *Input, s *summary, found []finding.Finding) []finding.Finding {
	r, ok := release(in)
	if !ok {
		return extensionDataMissing(in, s.extensionsAsked)
	}

	cat := catalogOf(in)
	talos := r.Tag()

	var out []finding.Finding

	files := schematicFiles(in)

	for _, name := range s.usedSchematics() {
		sf, ok := files[name]
		if !ok {
			continue
		}

		for i, e := range sf.Extensions {
			ext, _, ok := catalog.ParseExtensionRef(e)
			if !ok || r.Has(ext) || nvidiaSaysIt(talos, ext) {
				continue
			}

			f := finding.Finding{Severity: finding.Error, Code: CodeExtensionUnavailable, File: sf.File, Line: sf.Lines[i]}

			if a, ok := cat.Rename(ext, talos); ok {
				f.Message = a.Why()
				if a.Kind == catalog.AliasFactory {
					f.Severity, f.Code = finding.Warning, CodeExtensionRenamed
				}
			} else {
				f.Message = fmt.Sprintf("%s is not an official extension of Talos %s%s", e, talos, publishedHint(cat, ext))
			}

			out = append(out, f)
		}
	}

	return append(out, found...)
}

// nvidiaSaysIt: an NVIDIA extension of a track the release lacks, or a proprietary module
// of an open-only track, has a finding of its own that names what to use instead.
func nvidiaSaysIt(talos, name string) bool {
	ext, ok := catalog.ParseNvidia(name)
	if !ok {
		return false
	}

	return openOnly(talos, ext) || (ext.Flavour == catalog.FlavourNewFeature && !atLeast(talos, newFeatureSince))
}

// unavailableImage says why an explicit extension image is not the one the release
// publishes, or "" when it is (or when talos-mismatch says it better).
func unavailableImage(cat *catalog.Catalog, r catalog.Release, req requested) string {
	talos := r.Tag()

	tag, published := r.ImageTag(req.name)
	if !published && r.Has(req.name) {
		return "" // a derived release: published, with a tag the data does not give
	}

	if !published {
		msg := fmt.Sprintf("%s is not built for Talos %s", req.as, talos)

		if a, ok := cat.Rename(req.name, talos); ok && a.Use != "" {
			if useTag, ok := r.ImageTag(a.Use); ok {
				msg += "; use " + catalog.FormatRef(a.Use, useTag)
			}
		} else {
			msg += publishedHint(cat, req.name)
		}

		return msg
	}

	if req.tag == "" || req.tag == tag {
		return ""
	}

	if builtFor, ok := kmodTalos(req); ok && builtFor != talos {
		return ""
	}

	return fmt.Sprintf("%s is not the image Talos %s publishes: use %s", req.as, talos, catalog.FormatRef(req.name, tag))
}

// publishedHint says which releases do publish an extension, when some do.
func publishedHint(cat *catalog.Catalog, name string) string {
	var first, last string

	for _, tag := range cat.Releases() {
		r, _ := cat.Release(tag)
		if r.Has(name) {
			if first == "" {
				first = tag
			}

			last = tag
		}
	}

	if first == "" {
		return ""
	}

	return fmt.Sprintf(" (published for %s to %s)", first, last)
}

// extensionDataMissing says that extension checks were skipped, when there was anything to
// check: the catalog lacks the release and it was not (or could not be) fetched.
func extensionDataMissing(in *Input, asked bool) []finding.Finding {
	if in.Release.Unlisted || !asked {
		return nil // versions.unknown-release says it, or there was nothing to check
	}

	c := in.Cluster
	why := "this talops build has no extension data for it"

	if in.Release.Skipped != "" {
		why += " and " + in.Release.factorySaid() + " (" + in.Release.Skipped + ")"
	}

	if catalog.CompatibilitySource(c.Spec.TalosVersion) == "hand-kept" {
		why += fmt.Sprintf("; its upgrade floor and Kubernetes range are hand-kept until Talos machinery carries %s", minorOf(c.Spec.TalosVersion))
	}

	return []finding.Finding{{
		Severity: finding.Warning, Code: CodeExtensionDataMissing,
		File: c.Path(cluster.FileName), Line: c.Line("talosVersion"), Path: "talosVersion",
		Message: fmt.Sprintf("Talos %s: %s; extension data unknown: extension availability and NVIDIA driver versions were not checked (run online, or `talops catalog update`)", c.Spec.TalosVersion, why),
	}}
}
