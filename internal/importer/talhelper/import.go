package talhelper

import (
	"errors"
	"slices"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/importer"
	"github.com/talops/talops/internal/scaffold"
)

// mapping holds the state of one import.
type mapping struct {
	in       Input
	repo     importer.Repo
	contract *coreconfig.VersionContract
	// schematics maps a schematic's encoding to its name.
	schematics map[string]string
	// images are the schematic files of the talosImageURL installers.
	images *imageURLs
	// installers are the installer repositories talops.yaml names, chosen before the nodes.
	installers   installerNames
	talosVersion string
	// factory is talops.yaml's imageFactory ("" for the public one).
	factory string
	// templates are the templated node labels and annotations, rendered last.
	templates []templated
	// patchTemplates are the templated patches and extra manifests, by path, and
	// patchSets each node's sets of patches that talhelper templates together.
	patchTemplates map[string]*patchTemplate
	patchSets      map[string][][]string
	// refused is the first file named outside the repository the import may read: the
	// import is refused with it.
	refused error
}

// topKeys are the talconfig keys the import reads; any other is reported.
var topKeys = []string{
	"talosVersion", "kubernetesVersion", "clusterName", "endpoint", "clusterPodNets", "clusterSvcNets",
	"additionalApiServerCertSans", "additionalMachineCertSans", "cniConfig", "allowSchedulingOnControlPlanes",
	"allowSchedulingOnMasters", "domain", "imageFactory", "nodes", "patches", "controlPlane", "worker",
	"inlineManifests",
}

// Import maps a talconfig onto a talops repository. An error is a talconfig that cannot
// be read at all (YAML syntax, no nodes); everything else is a finding.
func Import(in Input) (*Result, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(in.Data, &doc); err != nil {
		return nil, &cluster.InputError{File: in.File, Msg: "not YAML: " + importer.OneLine(err)}
	}

	root := deref(&doc)
	if root == nil || root.Kind != yaml.MappingNode {
		return nil, &cluster.InputError{File: in.File, Line: 1, Msg: "a talconfig is a mapping"}
	}

	im := &mapping{
		in: in, repo: importer.Repo{Source: in.File}, schematics: map[string]string{},
		patchTemplates: map[string]*patchTemplate{}, patchSets: map[string][][]string{},
	}
	if err := im.substituteEnv(root); err != nil {
		return nil, err
	}

	// After the substitution, which would otherwise reach a merged value once per merge.
	if err := expandMerges(in.File, root); err != nil {
		return nil, err
	}

	if err := checkBooleans(in.File, root); err != nil {
		return nil, err
	}

	res, err := im.run(root)
	if err == nil && im.refused != nil {
		return nil, im.refused
	}

	return res, err
}

// locate places a file the talconfig names at line (field at): the path to read it by
// and its path in the new repository (importer.Locate). One outside the repository the
// import may read refuses the import (ok false); one otherwise refused is a finding.
func (im *mapping) locate(p string, line int, node, at string) (read, out string, ok bool) {
	read, out, err := importer.Locate(p, talconfigDir, im.in.Within)
	if err != nil {
		if !im.outside(err, line, at) {
			im.repo.Unsupported(line, node, at, "the file is "+err.Error()+"; not imported")
		}

		return "", "", false
	}

	return read, out, true
}

// outside says whether err is a file outside the repository the import may read, and
// then refuses the import with it, placed at line (field at).
func (im *mapping) outside(err error, line int, at string) bool {
	var out *importer.OutsideError
	if !errors.As(err, &out) {
		return false
	}

	if im.refused == nil {
		im.refused = &cluster.InputError{File: im.in.File, Line: line, Field: at, Msg: importer.OneLine(err) + ": the import reads no file outside it"}
	}

	return true
}

// spec is the cluster part of talops.yaml from talhelper's fields, the versions required,
// and the config contract of its Talos version.
func (im *mapping) spec(root *yaml.Node) (cluster.Spec, *coreconfig.VersionContract, error) {
	spec := cluster.Spec{
		Cluster:           cluster.Meta{Name: scalar(get(root, "clusterName")), Endpoint: scalar(get(root, "endpoint"))},
		TalosVersion:      scaffold.VersionTag(scalar(get(root, "talosVersion"))),
		KubernetesVersion: scaffold.VersionTag(scalar(get(root, "kubernetesVersion"))),
		Secrets:           im.in.Secrets,
	}

	given := scaffold.VersionTag(im.in.TalosVersion)
	from, conflict := importer.GivenVersion(im.in.TalosFromNodes, spec.TalosVersion, given, "talconfig")

	switch {
	case spec.TalosVersion == "" && given != "":
		spec.TalosVersion = given
		im.repo.Mapped(finding.Info, lineOf(root, "talosVersion"), "", "talosVersion",
			"not set: talops.yaml takes "+given+", "+from)
	case spec.TalosVersion == "":
		spec.TalosVersion = defaultTalosVersion
		im.repo.Mapped(finding.Warning, lineOf(root, "talosVersion"), "", "talosVersion",
			"not set: talhelper v3.1.16 (the release the import reproduces) takes the Talos release it was built with, "+defaultTalosVersion+", and so does talops.yaml: check it is the one your nodes run, or give it with --talos-version (or --talosconfig, to read it from the nodes)")
	case given != "" && given != spec.TalosVersion:
		im.repo.Mapped(finding.Warning, lineOf(root, "talosVersion"), "", "talosVersion", conflict)
	}

	for _, req := range []struct{ key, value string }{
		{"clusterName", spec.Cluster.Name}, {"endpoint", spec.Cluster.Endpoint},
		{"talosVersion", spec.TalosVersion}, {"kubernetesVersion", spec.KubernetesVersion},
	} {
		if req.value == "" || req.value == "v" {
			return spec, nil, &cluster.InputError{File: im.in.File, Line: lineOf(root, req.key), Field: req.key, Msg: "required (talops has no default for it)"}
		}
	}

	contract, err := coreconfig.ParseContractFromVersion(spec.TalosVersion)
	if err != nil {
		return spec, nil, &cluster.InputError{File: im.in.File, Line: lineOf(root, "talosVersion"), Field: "talosVersion", Msg: importer.OneLine(err)}
	}

	return spec, contract, nil
}

func (im *mapping) run(root *yaml.Node) (*Result, error) {
	for _, p := range pairs(root) {
		if !slices.Contains(topKeys, p.key) {
			// topKeys are every key of talhelper's own config: any other it ignores.
			im.repo.Unsupported(p.line, "", p.key, "unknown to talhelper, which ignores it: not imported")
		}
	}

	spec, contract, err := im.spec(root)
	if err != nil {
		return nil, err
	}

	im.contract, im.talosVersion = contract, spec.TalosVersion

	if contract.MultidocKubernetesConfigSupported() {
		// talhelper's configs encrypt under key1; a cluster that came from 1.13 holds Secrets under
		// key2, which its talhelper configs since could not read: both names read.
		spec.Cluster.SecretboxKeyNames = []string{"key1", "key2"}
		im.repo.Mapped(finding.Info, lineOf(root, "talosVersion"), "", "talosVersion",
			"talhelper v3.1.16 and v3.1.17 (machinery v1.14.0-alpha.2) name the etcd encryption key key1 on the 1.14 contract, Talos v1.14.1 names it key2: cluster.secretboxKeyNames keeps key1 to encrypt with, as talhelper did, and reads Secrets under either name")
	}

	if im.in.HasAESCBC && contract.SecretboxEncryptionSupported() && !contract.MultidocKubernetesConfigSupported() {
		im.repo.Unsupported(0, "", "secrets.aescbcencryptionsecret",
			"talhelper writes the bundle's aescbcEncryptionSecret into the control planes' configs; talops' generator does not (Kubernetes keeps reading secrets encrypted with it only while the config names it): not imported")
	}
	spec.ImageFactory = im.imageFactory(get(root, "imageFactory"))
	im.factory = spec.ImageFactory

	shared := im.clusterPatches(root)

	nodes := deref(get(root, "nodes"))
	if nodes == nil || nodes.Kind != yaml.SequenceNode || len(nodes.Content) == 0 {
		return nil, &cluster.InputError{File: im.in.File, Line: lineOf(root, "nodes"), Field: "nodes", Msg: "no nodes"}
	}

	global := im.patchList(get(root, "patches"), "global")
	roles := map[bool]*yaml.Node{true: get(root, "controlPlane"), false: get(root, "worker")}
	im.groupKeys(root)
	rolePatches := map[bool][]string{
		true:  im.patchList(get(roles[true], "patches"), string(cluster.RoleControlPlane)),
		false: im.patchList(get(roles[false], "patches"), string(cluster.RoleWorker)),
	}

	if err := im.findImageSchematics(nodes, roles); err != nil {
		return nil, err
	}

	im.chooseInstallerNames(nodes, roles)

	for i, n := range nodes.Content {
		node, err := im.node(deref(n), i, roles, rolePatches, shared, global)
		if err != nil {
			return nil, err
		}

		spec.Nodes = append(spec.Nodes, node)
	}

	im.imageDrift()
	im.writeInstallerNames(&spec)

	clusterPlatform(&spec)

	im.renderTemplates(&spec)
	im.renderPatchTemplates(&spec)

	return im.repo.Finish(spec, "talhelper")
}

// imageFactoryKeys are the keys of talhelper's imageFactory; any other it ignores.
var imageFactoryKeys = []string{"registryURL", "protocol", "schematicEndpoint", "installerURLTmpl", "ISOURLTmpl"}

// imageFactory maps imageFactory: its registry becomes talops' imageFactory; installer
// templates other than talhelper's default cannot be expressed.
func (im *mapping) imageFactory(n *yaml.Node) string {
	if n == nil {
		return ""
	}

	registry, protocol := "", "https"

	for _, p := range pairs(n) {
		if !slices.Contains(imageFactoryKeys, p.key) {
			im.repo.Unsupported(p.line, "", "imageFactory."+p.key, "unknown to talhelper, which ignores it: not imported")

			continue
		}

		switch p.key {
		case "registryURL":
			registry = scalar(p.value)
		case "protocol":
			protocol = scalar(p.value)
		case "schematicEndpoint":
			if scalar(p.value) != "/schematics" {
				im.repo.Unsupported(p.line, "", "imageFactory."+p.key, "talops posts schematics to /schematics; not imported")
			}
		case "installerURLTmpl":
			if scalar(p.value) != defaultInstallerTmpl {
				im.repo.Unsupported(p.line, "", "imageFactory."+p.key, "talops names installers <factory>/<platform>-installer[-secureboot]/<id>:<version>; this template is not imported")
			}
		case "ISOURLTmpl":
			// talhelper's key for its boot image URL template.
			im.repo.Mapped(finding.Info, p.line, "", "imageFactory."+p.key, "boot image URLs are talops' own (talops schematics lists them); the template is not needed")
		}
	}

	if registry == "" {
		return ""
	}

	return protocol + "://" + registry
}

// defaultTalosVersion is the Talos release talhelper v3.1.16 uses when talosVersion is not
// set (its LatestTalosVersion): the release the oracle tests build it from.
const defaultTalosVersion = "v1.13.8"

const defaultInstallerTmpl = "{{.RegistryURL}}/{{.Mode}}-installer{{if .Secureboot}}-secureboot{{end}}/{{.ID}}:{{.Version}}"

func lineOf(n *yaml.Node, key string) int {
	for _, p := range pairs(n) {
		if p.key == key {
			return p.line
		}
	}

	if n != nil {
		return n.Line
	}

	return 0
}
