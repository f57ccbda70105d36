package talhelper

import (
	"cmp"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/schematic"
)

// installerNames are the installer repositories talops.yaml names so that every node keeps
// the one its talosImageURL names (the factory serves an image under several names, and a
// node runs the one it was installed with): the cluster's, else by schematic ID.
type installerNames struct {
	cluster string
	byID    map[string]string
}

// nodeInstaller is what one node's installer needs: the repository it keeps (stem) beside
// the one talops names by default for its platform (def); id is its talosImageURL's
// schematic ID ("" for a node without one, whose installer talops names).
type nodeInstaller struct {
	id, stem, def string
}

// chooseInstallerNames picks the installer settings before the nodes are mapped: none when
// every node keeps its platform's name; the cluster's when every node whose installer
// talops names keeps the same one; else one per schematic ID, from its first node that
// keeps another name than its platform's. A node the settings still do not name keeps its
// URL in a patch (talopsInstaller says so), so the render is talhelper's either way.
func (im *mapping) chooseInstallerNames(nodes *yaml.Node, roles map[bool]*yaml.Node) {
	im.installers = installerNames{byID: map[string]string{}}

	var wants []nodeInstaller

	for _, n := range nodes.Content {
		n = deref(n)
		eff := effective(n, roles[boolean(get(n, "controlPlane"))])
		platform, secureBoot := installFlavour(eff)
		def := schematic.InstallerRepository(platform)

		url := scalar(get(eff, "talosImageURL"))
		if url == "" {
			wants = append(wants, nodeInstaller{stem: def, def: def})

			continue
		}

		ref, err := schematic.ParseInstallerImage(url)
		if err != nil || ref.ID == "" {
			continue
		}

		if stem, ok := im.keptRepository(ref, platform, secureBoot); ok {
			wants = append(wants, nodeInstaller{id: ref.ID, stem: stem, def: def})
		}
	}

	same, renamed := true, false
	for _, w := range wants {
		same = same && w.stem == wants[0].stem
		renamed = renamed || w.stem != w.def
	}

	switch {
	case !renamed:
	case same:
		im.installers.cluster = wants[0].stem
	default:
		for _, w := range wants {
			if _, set := im.installers.byID[w.id]; !set && w.id != "" && w.id != schematic.VanillaID && w.stem != w.def {
				im.installers.byID[w.id] = w.stem
			}
		}
	}
}

// installFlavour is a node's platform and secureBoot as its machineSpec names them.
func installFlavour(eff *yaml.Node) (platform string, secureBoot bool) {
	platform = cluster.DefaultPlatform

	for _, p := range pairs(get(eff, "machineSpec")) {
		switch p.key {
		case "mode":
			platform = cmp.Or(scalar(p.value), cluster.DefaultPlatform)
		case "secureboot":
			secureBoot = boolean(p.value)
		}
	}

	return platform, secureBoot
}

// keptRepository is the repository of a talosImageURL without its SecureBoot suffix, when
// talops.yaml can name it for the node: the cluster's factory, the node's secure boot, no
// tag or digest of the URL's own, and the node's platform's installer under the name
// talops gives it or, on metal, the factory's platform-less one. Another platform's image
// is not the node's: its URL stays in a patch.
func (im *mapping) keptRepository(ref schematic.InstallerRef, platform string, secureBoot bool) (string, bool) {
	want, err := schematic.ParseInstallerImage(schematic.Installer(cmp.Or(im.factory, cluster.DefaultImageFactory), schematic.LegacyInstaller, ref.ID, im.talosVersion, false))
	if err != nil || ref.Tag != "" || ref.Digest != "" || ref.Registry != want.Registry {
		return "", false
	}

	stem, suffixed := strings.CutSuffix(ref.Repository, "-secureboot")
	if suffixed != secureBoot {
		return "", false
	}

	if stem != schematic.InstallerRepository(platform) && (platform != cluster.DefaultPlatform || stem != schematic.LegacyInstaller) {
		return "", false
	}

	return stem, true
}

// installerRepository is the repository talops.yaml names for a node of the schematic ID
// and flavour: its schematic's setting, else the cluster's, else its platform's.
func (im *mapping) installerRepository(id string, flavour cluster.Node) string {
	if r := im.installers.byID[id]; r != "" {
		return r
	}

	return cmp.Or(im.installers.cluster, schematic.InstallerRepository(flavour.Platform))
}

// writeInstallerNames puts the settings chosen into talops.yaml: the cluster's, and each
// schematic's by the name its ID was given.
func (im *mapping) writeInstallerNames(spec *cluster.Spec) {
	spec.Installer = im.installers.cluster

	for id, stem := range im.installers.byID {
		is, ok := im.images.byID[id]
		if !ok || is.name == "" {
			continue
		}

		if spec.Schematics == nil {
			spec.Schematics = map[string]cluster.Schematic{}
		}

		s := spec.Schematics[is.name]
		s.Installer = stem
		spec.Schematics[is.name] = s
	}
}
