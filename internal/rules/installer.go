package rules

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/siderolabs/talos/pkg/machinery/config/types/runtime"

	"github.com/talops/talops/internal/catalog"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/schematic"
)

// Config paths of the two places a machine config names its installer.
const (
	pathInstallImage       = "machine.install.image"
	pathUnattendedImage    = runtime.UnattendedInstallConfigKind + ".installer.image"
	unattendedInstallerKey = "installer.image"
)

// installerUse is one installer image a node's final config names, and where it was set.
type installerUse struct {
	image string
	path  string
	file  string
	line  int
}

// installers lists the installer images of a node's final config: machine.install.image
// (the 1.13 contract and before) and the UnattendedInstallConfig document (the 1.14
// contract). Both are read whatever the version, since a patch may set either.
func installers(c *cluster.Cluster, n *render.Machine) []installerUse {
	var out []installerUse

	if m := n.Config.Machine(); m != nil {
		if img := m.Install().Image(); img != "" {
			file, line := place(c, n, pathInstallImage)
			out = append(out, installerUse{image: img, path: pathInstallImage, file: file, line: line})
		}
	}

	if u, ok := n.Config.UnattendedInstallConfig().(*runtime.UnattendedInstallConfigV1Alpha1); ok && u.Installer.Image != "" {
		file, line := placeInKind(c, n, runtime.UnattendedInstallConfigKind, unattendedInstallerKey)
		out = append(out, installerUse{image: u.Installer.Image, path: pathUnattendedImage, file: file, line: line})
	}

	return out
}

// placeInKind finds the last source that set path in a document of the given kind, else
// where that document starts, else falls back to place.
func placeInKind(c *cluster.Cluster, n *render.Machine, kind, path string) (string, int) {
	for p := path; p != ""; p = parentPath(p) {
		for i := len(n.Layers) - 1; i >= 0; i-- {
			for _, d := range n.Layers[i].Index.Docs {
				if d.Kind != kind {
					continue
				}

				if line, exact := d.Nearest(p); exact {
					return n.Layers[i].File, line
				}
			}
		}
	}

	for i := len(n.Layers) - 1; i >= 0; i-- {
		for _, d := range n.Layers[i].Index.Docs {
			if d.Kind == kind {
				return n.Layers[i].File, d.Line
			}
		}
	}

	return place(c, n, "")
}

// wantInstaller is the installer the repository says a node runs. A complete config
// (config:) is held to it only when the node names a schematic: otherwise talops.yaml
// claims nothing about its image.
func wantInstaller(in *Input, n *render.Machine) (string, bool) {
	if n.Generated {
		return n.Installer, n.Installer != ""
	}

	if n.Node.Schematic == "" {
		return "", false
	}

	if _, ok := in.Schematics[n.Node.Schematic]; !ok {
		return "", false
	}

	want, err := render.FactoryInstaller(in.Schematics)(in.Cluster, n.Node)

	return want, err == nil
}

// installerMismatch finds nodes whose final config installs or upgrades from another
// image than the factory installer of their schematic: the node would boot the wrong
// extensions (or none) after its next upgrade.
func installerMismatch(in *Input) []finding.Finding {
	var out []finding.Finding

	known := knownSchematics(in)

	for _, n := range rendered(in) {
		want, ok := wantInstaller(in, n)
		if !ok {
			continue
		}

		wantRef, err := schematic.ParseInstallerImage(want)
		if err != nil {
			continue
		}

		uses := installers(in.Cluster, n)
		if len(uses) == 0 && n.Node.Schematic != "" {
			out = append(out, noInstaller(in, n, want))

			continue
		}

		for _, use := range uses {
			got, err := schematic.ParseInstallerImage(use.image)
			if err == nil && acceptedInstaller(in.Cluster, n.Node, got, wantRef) {
				continue
			}

			msg := fmt.Sprintf("%q is not an image reference; node %s needs %s", use.image, n.Node.Name, want)
			if err == nil {
				msg = mismatchMessage(in.Cluster, n, known, got, wantRef)
			}

			out = append(out, finding.Finding{
				Severity: finding.Error, Code: CodeInstallerMismatch, Node: n.Node.Name,
				File: use.file, Line: use.line, Path: use.path, Message: msg,
			})
		}
	}

	return out
}

// acceptedInstaller: the same image as wanted (a digest pin does not make it another, nor
// the factory's legacy name of a metal installer for its platform-prefixed one, either
// way round: talops.yaml's installer may name the legacy one), the stock installer
// standing for the vanilla schematic where Talos still publishes it, or a stock installer
// that installer.ghcr-removed already reports.
func acceptedInstaller(c *cluster.Cluster, node cluster.Node, got, want schematic.InstallerRef) bool {
	if got.Registry == want.Registry && got.ID == want.ID && got.Tag == want.Tag &&
		sameMetalRepository(c.NodePlatform(node), got.Repository, want.Repository) {
		return true
	}

	if !isStockInstaller(got) {
		return false
	}

	if stockRemoved(c, got) {
		return true
	}

	return want.ID == schematic.VanillaID && got.Tag == want.Tag
}

// metalRepository is the platform-prefixed name of a legacy installer repository for a
// metal node; "" on any other platform or for any other name. The factory still serves
// the metal installer under its names from before the platform-prefixed ones (its registry
// frontend reads "installer" and "installer-secureboot" as metal), and talhelper users keep
// them in talosImageURL; on another platform the legacy image is not the node's.
func metalRepository(platform, repo string) string {
	if platform != cluster.DefaultPlatform {
		return ""
	}

	switch repo {
	case "installer", "installer-secureboot":
		return cluster.DefaultPlatform + "-" + repo
	default:
		return ""
	}
}

// sameMetalRepository: a and b are one repository, once a metal node's legacy names are
// read as the platform-prefixed ones.
func sameMetalRepository(platform, a, b string) bool {
	return a == b || cmp.Or(metalRepository(platform, a), a) == cmp.Or(metalRepository(platform, b), b)
}

func mismatchMessage(c *cluster.Cluster, n *render.Machine, known map[string]knownSchematic, got, want schematic.InstallerRef) string {
	var reasons []string

	switch {
	case isStockInstaller(got) && want.ID == schematic.VanillaID:
		// The stock image is the vanilla one: only its version can be wrong.
	case isStockInstaller(got):
		reasons = append(reasons, "the stock installer from ghcr.io (no system extensions)")
	case got.Registry != want.Registry:
		reasons = append(reasons, "not an installer of the Image Factory at "+want.Registry)
	case got.ID == "":
		reasons = append(reasons, fmt.Sprintf("not a schematic's installer (the factory serves %s/%s/<64 hex digits of a schematic ID>)", want.Registry, want.Repository))
	default:
		if got.ID != want.ID {
			reasons = append(reasons, idReason(n, known, got.ID))
		}

		if got.Repository != want.Repository {
			reasons = append(reasons, fmt.Sprintf("repository %s (not %s: %s%s)", got.Repository, want.Repository, flavourOf(c, n.Node), secureBootNote(n)))
		}
	}

	if got.Tag != want.Tag && (got.Registry == want.Registry || isStockInstaller(got)) {
		reasons = append(reasons, fmt.Sprintf("for Talos %s (not %s)", orNone(got.Tag), want.Tag))
	}

	msg := fmt.Sprintf("%s is %s; node %s needs %s (%s, Talos %s)",
		got, strings.Join(reasons, ", "), n.Node.Name, want, schematicLabel(n.Node.Schematic), c.Spec.TalosVersion)

	if lost := lostExtensions(known, got, want); len(lost) > 0 {
		msg += " and would lose " + strings.Join(lost, ", ") + " on its next upgrade"
	}

	return msg
}

func idReason(n *render.Machine, known map[string]knownSchematic, id string) string {
	k, ok := known[id]

	switch {
	case id == schematic.VanillaID && (!ok || k.name == ""):
		return "the vanilla installer (no schematic)"
	case ok && n.Node.Schematic != "":
		return fmt.Sprintf("the installer of schematic %s (not %s)", k.name, n.Node.Schematic)
	case ok:
		return fmt.Sprintf("the installer of schematic %s (which the node does not name)", k.name)
	default:
		return fmt.Sprintf("the installer of schematic ID %s (none of this repository's schematics)", id)
	}
}

// lostExtensions are the extensions of the wanted schematic that the installer in use
// lacks, when talops knows what that installer carries.
func lostExtensions(known map[string]knownSchematic, got, want schematic.InstallerRef) []string {
	var have []string

	switch k, ok := known[got.ID]; {
	case isStockInstaller(got), got.ID == schematic.VanillaID:
	case ok && !k.opaque:
		have = k.extensions
	default:
		return nil
	}

	var lost []string

	for _, e := range known[want.ID].extensions {
		if !slices.Contains(have, e) && !slices.Contains(lost, e) {
			lost = append(lost, e)
		}
	}

	return lost
}

// flavourOf says where the node's installer repository comes from: talops.yaml's installer
// setting, or the node's platform.
func flavourOf(c *cluster.Cluster, n cluster.Node) string {
	if r := c.NodeInstaller(n, c.Spec.TalosVersion); r != schematic.InstallerRepository(c.NodePlatform(n)) {
		return "installer " + r
	}

	return "platform " + c.NodePlatform(n)
}

func secureBootNote(n *render.Machine) string {
	if n.Node.SecureBoot {
		return ", secureBoot: true"
	}

	return ""
}

func schematicLabel(name string) string {
	if name == "" {
		return "no schematic"
	}

	return "schematic " + name
}

func orNone(s string) string {
	if s == "" {
		return "(no tag)"
	}

	return s
}

// knownSchematic is what talops knows about an image by its schematic ID.
type knownSchematic struct {
	name       string
	extensions []string
	// opaque: the file holds only the ID, so the extensions are unknown.
	opaque bool
}

// knownSchematics maps the ID of every schematic of the repository to its name and
// extensions; schematics that do not load are reported where they are loaded.
func knownSchematics(in *Input) map[string]knownSchematic {
	out := map[string]knownSchematic{}

	for name, id := range in.Schematics {
		rel, ok := in.Cluster.Spec.Schematics[name]
		if !ok {
			continue
		}

		data, _ := in.Cluster.File(rel.File)

		var exts []string

		_, opaque := schematic.Opaque(data)
		if !opaque {
			s, err := schematic.Load(data)
			if err != nil {
				continue
			}

			exts = s.Extensions()
		}

		// Two names for one schematic: keep the first in order, so messages are stable.
		if k, dup := out[id]; dup && k.name < name {
			continue
		}

		out[id] = knownSchematic{name: name, extensions: exts, opaque: opaque}
	}

	return out
}

// installerGHCRRemoved finds the stock installer on Talos 1.14 and later, which Sidero
// Labs no longer publishes: an upgrade or install would fail to pull it.
func installerGHCRRemoved(in *Input) []finding.Finding {
	var out []finding.Finding

	for _, n := range rendered(in) {
		for _, use := range installers(in.Cluster, n) {
			got, err := schematic.ParseInstallerImage(use.image)
			if err != nil || !isStockInstaller(got) || !stockRemoved(in.Cluster, got) {
				continue
			}

			want, ok := wantInstaller(in, n)
			if !ok {
				want = schematic.Installer(in.Cluster.ImageFactory(), in.Cluster.NodeInstaller(n.Node, in.Cluster.Spec.TalosVersion), schematic.VanillaID, in.Cluster.Spec.TalosVersion, n.Node.SecureBoot)
			}

			out = append(out, finding.Finding{
				Severity: finding.Error, Code: CodeInstallerGHCRRemoved, Node: n.Node.Name,
				File: use.file, Line: use.line, Path: use.path,
				Message: fmt.Sprintf("%s: ghcr.io/siderolabs/installer is not published for Talos 1.14 and later; the installer comes from the Image Factory: %s (%s)",
					use.image, want, schematicLabel(n.Node.Schematic)),
			})
		}
	}

	return out
}

func isStockInstaller(r schematic.InstallerRef) bool {
	return r.Registry == "ghcr.io" && r.Repository == "siderolabs/installer"
}

// stockRemoved: the cluster targets Talos 1.14 or later, or the image's own tag does.
func stockRemoved(c *cluster.Cluster, r schematic.InstallerRef) bool {
	return atLeastMinor(c.Spec.TalosVersion, 14) || atLeastMinor(r.Tag, 14)
}

func atLeastMinor(v string, minor int) bool {
	c, err := catalog.CompareMinor(v, fmt.Sprintf("1.%d", minor))

	return err == nil && c >= 0
}

// noInstaller reports a node with a schematic whose final config names no installer
// (a patch removed it, or the 1.14 contract without installDisk writes none): Talos
// would install the stock image, without the schematic's extensions.
func noInstaller(in *Input, n *render.Machine, want string) finding.Finding {
	why := "a patch removed machine.install.image"
	if n.Generated && n.Node.InstallDisk == "" {
		why = "the node has no installDisk, and from the 1.14 config contract the installer is only written with one"
	}

	file, line := in.Cluster.Path(cluster.FileName), in.Cluster.NodeLine(n.Node.Name, "")
	if !n.Generated && len(n.Layers) > 0 {
		file, line = n.Layers[0].File, 0
	}

	return finding.Finding{
		Severity: finding.Error, Code: CodeInstallerMismatch, Node: n.Node.Name, File: file, Line: line, Path: pathInstallImage,
		Message: fmt.Sprintf("the final config names no installer (%s): Talos would install the stock image without the extensions of schematic %s; the node needs %s",
			why, n.Node.Schematic, want),
	}
}
