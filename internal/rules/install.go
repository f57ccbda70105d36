package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/talops/talops/internal/catalog"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/schematic"
)

const deprecatedExtensionsPath = "machine.install.extensions"

// installExtensionsDeprecated finds extensions listed in machine.install.extensions.
// Talos deprecated that list: the extensions a node runs are those of the image it boots
// and upgrades from, named by its schematic. The message says what to move where.
func installExtensionsDeprecated(in *Input) []finding.Finding {
	sev := finding.Warning
	if in.Strict {
		sev = finding.Error
	}

	var out []finding.Finding

	for _, n := range rendered(in) {
		m := n.Config.Machine()
		if m == nil || len(m.Install().Extensions()) == 0 {
			continue
		}

		var images []string
		for _, e := range m.Install().Extensions() {
			images = append(images, e.Image())
		}

		file, line := place(in.Cluster, n, deprecatedExtensionsPath)

		out = append(out, finding.Finding{
			Severity: sev, Code: CodeInstallExtensionsDeprecated, Node: n.Node.Name,
			File: file, Line: line, Path: deprecatedExtensionsPath,
			Message: extensionsAdvice(in.Cluster, n, images),
		})
	}

	return out
}

// extensionsAdvice says how to move the listed extensions into the node's schematic.
func extensionsAdvice(c *cluster.Cluster, n *render.Machine, images []string) string {
	var official, already, custom []string

	have := schematicExtensionsOf(c, n.Node.Schematic)

	for _, img := range images {
		name, ok := officialName(img)
		if ok {
			name = publishedName(name, c.Spec.TalosVersion)
		}

		switch {
		case !ok:
			custom = append(custom, img)
		case slices.Contains(have, name):
			already = appendNew(already, name)
		default:
			official = appendNew(official, name)
		}
	}

	var b strings.Builder

	fmt.Fprintf(&b, "machine.install.extensions is deprecated (%s): a node runs the extensions of the image its schematic names", strings.Join(images, ", "))

	target := "a schematic file, list it under schematics: in talops.yaml and set schematic: on node " + n.Node.Name
	if n.Node.Schematic != "" {
		target = fmt.Sprintf("schematic %s (%s)", n.Node.Schematic, c.Path(c.Spec.Schematics[n.Node.Schematic].File))

		if render.OpaqueSchematic(c, n.Node.Schematic) {
			// What it already carries is unknown: every official image reads as one to add.
			target += " once the file holds the schematic, not only its ID (schematic.opaque)"
		}
	}

	if len(official) > 0 {
		fmt.Fprintf(&b, "; add %s under customization.systemExtensions.officialExtensions of %s (the factory picks the tag that matches talosVersion)",
			strings.Join(official, ", "), target)
	}

	if len(already) > 0 {
		fmt.Fprintf(&b, "; %s already in schematic %s", strings.Join(already, ", "), n.Node.Schematic)
	}

	if len(custom) > 0 {
		fmt.Fprintf(&b, "; %s not official: build it into a custom installer with the Talos imager", strings.Join(custom, ", "))
	}

	b.WriteString("; then remove machine.install.extensions")

	return b.String()
}

// officialName maps ghcr.io/siderolabs/<name>:<tag> to the schematic's siderolabs/<name>.
func officialName(image string) (string, bool) {
	r, err := schematic.ParseInstallerImage(image)
	if err != nil || r.Registry != "ghcr.io" || r.ID != "" {
		return "", false
	}

	short, ok := strings.CutPrefix(r.Repository, "siderolabs/")
	if !ok || short == "" || strings.Contains(short, "/") {
		return "", false
	}

	return r.Repository, true
}

// publishedName is the name to put in a schematic for the cluster's release: an old name
// the release no longer publishes (the NVIDIA names before the lts/production split) is
// replaced by the one that gives what it meant.
func publishedName(name, talos string) string {
	if a, ok := catalog.Embedded().Rename(name, talos); ok && a.Use != "" {
		return "siderolabs/" + a.Use
	}

	return name
}

func schematicExtensionsOf(c *cluster.Cluster, name string) []string {
	rel, ok := c.Spec.Schematics[name]
	if !ok {
		return nil
	}

	data, _ := c.File(rel.File)

	s, err := schematic.Load(data)
	if err != nil {
		return nil
	}

	return s.Extensions()
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}

	return append(list, s)
}
