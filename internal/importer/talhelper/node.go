package talhelper

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
)

// nodeKeys are the node keys the import reads; any other is reported.
var nodeKeys = []string{
	"hostname", "ipAddress", "controlPlane", "installDisk", "installDiskSelector", "machineSpec", "talosImageURL",
	"schematic", "patches", "nodeLabels", "nodeAnnotations", "nodeTaints", "kernelModules", "certSANs",
	"ignoreHostname", "networkInterfaces", "nameservers", "disableSearchDomain", "overridePatches",
	"overrideMachineCertSANs", "machineFiles", "extensionServices", "ingressFirewall",
	"volumes", "userVolumes", "machineDisks", "extraManifests", "overrideExtraManifests",
}

// talhelperOnlyNodeKeys are the node keys talhelper reads that the import does not: they
// shape talhelper's own work (schematic validation, output file names), not the config.
var talhelperOnlyNodeKeys = []string{"noSchematicValidate", "filenameTmpl"}

// op is one RFC 6902 operation of a node's talhelper fields.
type op struct {
	Op    string `yaml:"op"`
	Path  string `yaml:"path"`
	Value any    `yaml:"value"`
}

// unimportedKeys says which keys of a node (eff, with its group's) talops does not import.
func (im *mapping) unimportedKeys(eff *yaml.Node, name string, field func(string) string) {
	for _, p := range pairs(eff) {
		switch {
		case p.key == "imageSchematic":
			im.repo.Mapped(finding.Info, p.line, name, field(p.key), "it shapes talhelper's boot image URLs only, not the config: talops schematics lists the boot images of the node's schematic")
		case slices.Contains(talhelperOnlyNodeKeys, p.key):
			im.repo.Unsupported(p.line, name, field(p.key), "talops has no equivalent; not imported")
		case !slices.Contains(nodeKeys, p.key):
			im.repo.Unsupported(p.line, name, field(p.key), "unknown to talhelper, which ignores it: not imported")
		}
	}
}

// node maps one node: its talops.yaml entry and the patches that stand for its
// talhelper fields, in talhelper's order (generated fields, role patches, node patches,
// global patches).
func (im *mapping) node(n *yaml.Node, i int, roles map[bool]*yaml.Node, rolePatches map[bool][]string, shared sharedPatches, global []string) (cluster.Node, error) {
	cp := boolean(get(n, "controlPlane"))
	eff := effective(n, roles[cp])
	name := scalar(get(n, "hostname"))

	if name == "" {
		return cluster.Node{}, &cluster.InputError{File: im.in.File, Line: n.Line, Field: fmt.Sprintf("nodes[%d].hostname", i), Msg: "required: the node's name in talops"}
	}

	field := func(k string) string { return fmt.Sprintf("nodes[%d].%s", i, k) }

	im.unimportedKeys(eff, name, field)

	out := cluster.Node{Name: name, Role: cluster.RoleWorker, InstallDisk: scalar(get(eff, "installDisk"))}
	if cp {
		out.Role = cluster.RoleControlPlane
	}

	out.Address = im.address(eff, name, field)
	ownInstaller := im.machineSpec(eff, name, field, &out)

	if shared.all != "" {
		out.Patches = append(out.Patches, shared.all)
	}

	if cp && shared.controlPlane != "" {
		out.Patches = append(out.Patches, shared.controlPlane)
	}

	out.Patches = append(out.Patches, im.fieldPatches(n, eff, roles[cp], name, field, ownInstaller)...)

	// Role patches come first (talhelper prepends them to the node's), unless the node
	// overrides them.
	var own []string
	if !boolean(get(n, "overridePatches")) || zero(get(n, "patches"), "patches") {
		own = append(own, rolePatches[cp]...)
	}

	own = append(own, im.patchList(get(n, "patches"), "node-"+name)...)
	manifests := im.extraManifests(n, roles[cp], name, field)

	// talhelper templates each of these sets on the config as it is before the set.
	im.patchSets[name] = [][]string{own, global, manifests}

	out.Patches = append(out.Patches, own...)
	out.Patches = append(out.Patches, global...)
	out.Patches = append(out.Patches, manifests...)

	return out, nil
}

// address is the node's ipAddress; talhelper takes a list, talops one address.
func (im *mapping) address(eff *yaml.Node, name string, field func(string) string) string {
	addr := scalar(get(eff, "ipAddress"))
	if first, _, more := strings.Cut(addr, ","); more {
		im.repo.Mapped(finding.Info, lineOf(eff, "ipAddress"), name, field("ipAddress"), "talops knows one address per node: the first is used")
		addr = strings.TrimSpace(first)
	}

	return addr
}

// fieldPatches writes the patches that stand for the node's talhelper fields (the config
// operations talhelper makes, then the documents it adds) and returns their paths, in
// that order. n is the node as written, eff the node with its group's settings.
func (im *mapping) fieldPatches(n, eff, role *yaml.Node, name string, field func(string) string, ownInstaller bool) []string {
	var out []string

	// talhelper appends the group's certSANs, patches and extraManifests unless the node
	// overrides them, and still takes the group's when the node's own are zero.
	sans := strs(get(n, "certSANs"))
	if !boolean(get(n, "overrideMachineCertSANs")) || zero(get(n, "certSANs"), "certSANs") {
		sans = append(sans, strs(get(role, "certSANs"))...)
	}

	ops, kube := im.documentLayout(im.nodeOps(eff, name, field, sans, ownInstaller), boolean(get(eff, "controlPlane")), name)

	if len(ops) > 0 {
		rel := talhelperPatch(name)
		if err := im.repo.AddYAML(rel, "# The node's talhelper fields (labels, taints, disk selector, kernel modules...), as talhelper sets them.", ops); err != nil {
			im.repo.Unsupported(0, "", rel, err.Error())
		}
		out = append(out, rel)
	}

	if len(kube) > 0 {
		rel := kubernetesPatch(name)
		if err := im.repo.AddDocs(rel, "# The node's talhelper fields the contract writes as documents (install, labels, annotations, taints), as talhelper sets them.", kube); err != nil {
			im.repo.Unsupported(0, "", rel, err.Error())
		}
		out = append(out, rel)
	}

	if docs := im.nodeDocs(eff, name, field); len(docs) > 0 {
		rel := "nodes/" + name + "-documents.yaml"
		if err := im.repo.AddDocs(rel, "# The documents talhelper adds to the node: its hostname, its extension services, its network interfaces.", docs); err != nil {
			im.repo.Unsupported(0, "", rel, err.Error())
		}
		out = append(out, rel)
	}

	return out
}

// machineSpec maps the installer flavour: mode is the node's platform (the cluster's, when
// most nodes share it: clusterPlatform), secureboot its secureBoot; arch, bootMethod and
// imageSuffix name boot images only. ownInstaller says talops names the node's installer
// instead of talosImageURL.
func (im *mapping) machineSpec(n *yaml.Node, name string, field func(string) string, out *cluster.Node) (ownInstaller bool) {
	out.Platform = cluster.DefaultPlatform

	for _, p := range pairs(get(n, "machineSpec")) {
		switch p.key {
		case "mode":
			out.Platform = cmp.Or(scalar(p.value), cluster.DefaultPlatform)
		case "secureboot":
			out.SecureBoot = boolean(p.value)
		case "useUKI", "arch", "bootMethod", "imageSuffix":
			// They choose boot images and kernel argument handling, not config fields.
		default:
			im.repo.Unsupported(p.line, name, field("machineSpec."+p.key), "unknown to talhelper, which ignores it: not imported")
		}
	}

	switch s := get(n, "schematic"); {
	case scalar(get(n, "talosImageURL")) != "":
		out.Schematic, ownInstaller = im.imageURLSchematic(n, name, *out, field)
	case s != nil:
		out.Schematic = im.schematic(s, name, field("schematic"))
	}

	return ownInstaller
}
