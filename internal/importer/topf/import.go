package topf

import (
	"cmp"
	"net/netip"
	"path"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/importer"
	"github.com/talops/talops/internal/scaffold"
)

// defaultFactory is the factory topf names installers after when factory is not set.
const defaultFactory = "factory.talos.dev"

// mapping holds the state of one import.
type mapping struct {
	in         Input
	repo       importer.Repo
	patchesDir string
	tmpl       *renderer
	// checked are the plain files already looked at.
	checked map[string]bool
	// schematics maps a schematic's contents to its name.
	schematics map[string]string
}

// Import maps a topf repository onto a talops one. An error is a repository topf itself
// refuses (YAML syntax, no nodes, a node without host or role); everything talops cannot
// express is a finding.
func Import(in Input) (*Result, error) {
	im := &mapping{
		in: in, repo: importer.Repo{Source: in.File}, tmpl: &renderer{lookup: in.Lookup, used: map[string]bool{}},
		checked: map[string]bool{}, schematics: map[string]string{},
	}

	c, err := im.parse()
	if err != nil {
		return nil, err
	}

	return im.run(c)
}

func (im *mapping) run(c *config) (*Result, error) {
	spec, err := im.spec(c)
	if err != nil {
		return nil, err
	}

	if im.patchesDir, err = importer.CleanRel(cmp.Or(c.PatchesDir, "."), "topf.yaml's directory"); err != nil {
		return nil, &cluster.InputError{File: im.in.File, Line: c.lines["patchesDir"], Field: "patchesDir", Msg: cmp.Or(c.PatchesDir, ".") + " is " + err.Error()}
	}

	if err := im.place(c, spec); err != nil {
		return nil, err
	}

	for _, v := range im.tmpl.usedVars() {
		im.repo.Report(finding.Finding{
			Severity: finding.Warning, Code: CodeSubstituted, File: im.in.File, Path: "env " + v,
			Message: "templates read " + v + " with env: talops has no templating, so its value is written into the imported patches (move a secret out before committing)",
		})
	}

	return im.repo.Finish(*spec, "topf")
}

// spec maps the cluster's fields and each node's own.
func (im *mapping) spec(c *config) (*cluster.Spec, error) {
	spec := &cluster.Spec{
		Cluster:           cluster.Meta{Name: c.ClusterName, Endpoint: c.ClusterEndpoint},
		TalosVersion:      scaffold.VersionTag(c.TalosVersion),
		KubernetesVersion: scaffold.VersionTag(c.KubernetesVersion),
		Secrets:           im.in.Secrets,
	}

	im.talosVersion(c, spec)

	for _, req := range []struct{ key, value, why string }{
		{"clusterName", c.ClusterName, "required"}, {"clusterEndpoint", c.ClusterEndpoint, "required"},
		{"kubernetesVersion", c.KubernetesVersion, "required"},
		{"talosVersion", spec.TalosVersion, "not set, and topf then uses the Talos release it was built with, which talops cannot know: " +
			"give the release the nodes run with --talos-version, or --talosconfig to read it from them"},
	} {
		if req.value == "" {
			return nil, &cluster.InputError{File: im.in.File, Line: cmp.Or(c.lines[req.key], 1), Field: req.key, Msg: req.why}
		}
	}

	if len(c.Nodes) == 0 {
		return nil, &cluster.InputError{File: im.in.File, Line: cmp.Or(c.lines["nodes"], 1), Field: "nodes", Msg: "no nodes"}
	}

	if f := cmp.Or(c.Factory, defaultFactory); f != defaultFactory {
		spec.ImageFactory = "https://" + strings.TrimSuffix(f, "/")
	}

	if c.Platform != "" && c.Platform != cluster.DefaultPlatform {
		spec.Platform = c.Platform
	}

	for i := range c.Nodes {
		n := &c.Nodes[i]
		field := "nodes[" + strconv.Itoa(i) + "]."

		if v := n.TalosVersion; v != "" && scaffold.VersionTag(v) != spec.TalosVersion {
			im.repo.Unsupported(n.lines["talosVersion"], n.Host, field+"talosVersion",
				"talops has one talosVersion per cluster: the node renders, installs and upgrades with "+spec.TalosVersion+", not "+scaffold.VersionTag(v))
		}

		if n.Factory != "" && n.Factory != cmp.Or(c.Factory, defaultFactory) {
			im.repo.Unsupported(n.lines["factory"], n.Host, field+"factory",
				"talops has one imageFactory per cluster: the node's installer comes from "+cmp.Or(c.Factory, defaultFactory)+", not "+n.Factory)
		}

		if n.IP != "" {
			if _, err := netip.ParseAddr(n.IP); err != nil {
				return nil, &cluster.InputError{File: im.in.File, Line: n.lines["ip"], Field: field + "ip", Msg: "not an IP address, as topf requires"}
			}
		}

		role := cluster.RoleWorker
		if n.Role == roleControlPlane {
			role = cluster.RoleControlPlane
		}

		node := cluster.Node{Name: n.Host, Address: cmp.Or(n.IP, n.Host), Role: role, SecureBoot: n.SecureBoot || c.SecureBoot}
		if n.Platform != "" && n.Platform != cmp.Or(c.Platform, cluster.DefaultPlatform) {
			node.Platform = n.Platform
		}

		spec.Nodes = append(spec.Nodes, node)
	}

	return spec, nil
}

// talosVersion takes --talos-version where topf.yaml names no release, with a note; where
// it names one, a different --talos-version is a warning and not used.
func (im *mapping) talosVersion(c *config, spec *cluster.Spec) {
	given := scaffold.VersionTag(im.in.TalosVersion)
	from, conflict := importer.GivenVersion(im.in.TalosFromNodes, spec.TalosVersion, given, "topf.yaml")

	switch {
	case given == "":
	case spec.TalosVersion == "":
		spec.TalosVersion = given
		im.repo.Report(finding.Finding{
			Severity: finding.Info, Code: CodeMapped, File: im.in.File, Line: cmp.Or(c.lines["talosVersion"], 1), Path: "talosVersion",
			Message: "not set: talops.yaml takes " + given + ", " + from,
		})
	case given != spec.TalosVersion:
		im.repo.Report(finding.Finding{
			Severity: finding.Warning, Code: CodeMapped, File: im.in.File, Line: c.lines["talosVersion"], Path: "talosVersion",
			Message: conflict,
		})
	}
}

// templateContext is what topf's templates see when rendering node n.
func templateContext(c *config, n *node, patchesDir string) *patchContext {
	nc := &nodeContext{
		Host: n.Host, Role: n.Role, Data: n.Data, TalosVersion: n.TalosVersion, SchematicID: n.SchematicID,
		Factory: n.Factory, Platform: n.Platform, SecureBoot: n.SecureBoot,
	}

	if a, err := netip.ParseAddr(n.IP); err == nil {
		nc.IP = &a
	}

	return &patchContext{
		ClusterName: c.ClusterName, ClusterEndpoint: c.ClusterEndpoint, KubernetesVersion: c.KubernetesVersion,
		TalosVersion: c.TalosVersion, Data: c.Data, Node: nc, PatchesDir: patchesDir,
	}
}

// unsupportedOnce reports a finding of file once, however many nodes meet it.
func (im *mapping) unsupportedOnce(file string, line int, node, field, msg string) {
	im.repo.ReportOnce(finding.Finding{
		Severity: finding.Warning, Code: CodeUnsupported, File: im.at(file), Line: line, Node: node, Path: field, Message: msg,
	})
}

// at names a file of the repository as findings and errors name it; topf.yaml is named
// as the input names it.
func (im *mapping) at(rel string) string {
	if rel == im.in.File || im.in.Dir == "" {
		return rel
	}

	return path.Join(im.in.Dir, rel)
}

// SecretsPath is the bundle topf reads for this topf.yaml: secretsPath, relative to
// topf.yaml's directory, or secrets.yaml beside it.
func SecretsPath(data []byte) string {
	var c struct {
		SecretsPath string `yaml:"secretsPath"`
	}

	if yaml.Unmarshal(data, &c) != nil || c.SecretsPath == "" {
		return "secrets.yaml"
	}

	return c.SecretsPath
}

func itoa(n int) string { return strconv.Itoa(n) }
