package talhelper

import (
	"bytes"
	"maps"
	"slices"
	"time"

	template "github.com/DataDog/datadog-agent/pkg/template/text"
	"github.com/Masterminds/sprig/v3"
	gensecrets "github.com/siderolabs/talos/pkg/machinery/config/generate/secrets"
	"github.com/siderolabs/talos/pkg/machinery/config/types/v1alpha1"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/importer"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/scaffold"
	"github.com/talops/talops/internal/secrets"
)

// templated is a node label or annotation whose value is a talhelper template: key of
// the map at path, whose plain values (the talhelper patch sets them) are plain.
type templated struct {
	node, path, key, text, field string
	plain                        map[string]string
	line                         int
}

// renderTemplates renders the templated node labels and annotations as talhelper does: a
// Go template with sprig's functions, executed on the node's v1alpha1 config once its own
// fields are set (what talops renders from the cluster patches and the node's talhelper
// patch). The values go to nodes/<node>-templates.yaml, right after that patch. The config
// is rendered twice, with two throwaway bundles: a template whose value differs between
// them reads a secret (or the clock, or chance), and is not imported.
func (im *mapping) renderTemplates(spec *cluster.Spec) {
	if len(im.templates) == 0 {
		return
	}

	cuts := map[string]int{}

	for _, t := range im.templates {
		for _, n := range spec.Nodes {
			if n.Name == t.node {
				cuts[n.Name] = im.labelCut(n)
			}
		}
	}

	configs, err := im.stageConfigs(spec, cuts)
	if err != nil {
		for _, t := range im.templates {
			im.repo.Unsupported(t.line, t.node, t.field, "a talhelper template, not rendered ("+importer.OneLine(err)+"): not imported")
		}

		return
	}

	// Each map is added whole, its plain values with the rendered ones: an empty map is
	// not encoded, so after a talhelper patch setting none but templated values there is
	// no map for an add of one key to apply to (RFC 6902: "doc is missing path").
	ops := map[string][]op{}
	whole := map[string]map[string]string{}

	for _, t := range im.templates {
		value, ok := im.templateValue(t, configs[t.node])
		if !ok {
			continue
		}

		m, ok := whole[t.node+t.path]
		if !ok {
			m = maps.Clone(t.plain)
			whole[t.node+t.path] = m
			ops[t.node] = append(ops[t.node], op{Op: "add", Path: t.path, Value: m})
		}

		m[t.key] = value
	}

	for i := range spec.Nodes {
		n := &spec.Nodes[i]
		if len(ops[n.Name]) == 0 {
			continue
		}

		rel := "nodes/" + n.Name + "-templates.yaml"
		if err := im.addTemplated(rel, n.Name, ops[n.Name]); err != nil {
			im.repo.Unsupported(0, n.Name, rel, err.Error())

			continue
		}

		at := max(slices.Index(n.Patches, talhelperPatch(n.Name)), slices.Index(n.Patches, kubernetesPatch(n.Name))) + 1
		n.Patches = slices.Insert(n.Patches, at, rel)
	}
}

// templateValue renders a templated label or annotation on each of its node's configs
// (one per throwaway bundle): its value, or false when it does not render or reads a
// secret (the values differ), which is reported.
func (im *mapping) templateValue(t templated, configs []*v1alpha1.Config) (string, bool) {
	var values []string

	for _, cfg := range configs {
		v, err := executeTemplate(t.text, cfg)
		if err != nil {
			im.repo.Unsupported(t.line, t.node, t.field, "a talhelper template that does not render ("+importer.OneLine(err)+"): not imported")

			return "", false
		}

		values = append(values, v)
	}

	if len(values) == 0 {
		return "", false
	}

	if slices.ContainsFunc(values, func(v string) bool { return v != values[0] }) {
		im.repo.Unsupported(t.line, t.node, t.field, "a talhelper template whose value reads a secret (or the clock, or chance): talops writes no secret into a patch, so it is not imported")

		return "", false
	}

	return values[0], true
}

// talhelperPatch is the patch of a node's talhelper fields.
func talhelperPatch(node string) string {
	return "nodes/" + node + "-talhelper.yaml"
}

// kubernetesPatch is the patch of a node's talhelper fields that the contract writes as
// documents (documentLayout).
func kubernetesPatch(node string) string {
	return "nodes/" + node + "-kubernetes.yaml"
}

// labelCut is how many of a node's patches talhelper has applied when it templates the
// node's labels: those before its talhelper fields, and those.
func (im *mapping) labelCut(n cluster.Node) int {
	if at := max(slices.Index(n.Patches, talhelperPatch(n.Name)), slices.Index(n.Patches, kubernetesPatch(n.Name))); at >= 0 {
		return at + 1
	}

	return im.setStart(n, 0)
}

// stageConfigs renders, twice (with two throwaway bundles), each node of cuts as talhelper
// templates it: the generated config with the node's first cuts[node] patches.
func (im *mapping) stageConfigs(spec *cluster.Spec, cuts map[string]int) (map[string][]*v1alpha1.Config, error) {
	s := im.repo.WithSchematics(*spec)
	s.Secrets = "secrets.yaml"
	s.Nodes = slices.Clone(s.Nodes)

	for i := range s.Nodes {
		// The patches past the cut may be templates not written yet.
		s.Nodes[i].Patches = s.Nodes[i].Patches[:min(cuts[s.Nodes[i].Name], len(s.Nodes[i].Patches))]
	}

	talops, err := scaffold.ImportedSpec(s, "talhelper")
	if err != nil {
		return nil, err
	}

	files := cluster.MapFiles{cluster.FileName: talops, s.Secrets: []byte("{}\n")}
	for _, f := range im.repo.Files() {
		files[f.Path] = f.Data
	}

	c, err := cluster.Load("import", files)
	if err != nil {
		return nil, err
	}

	ids, err := render.SchematicIDs(c)
	if err != nil {
		return nil, err
	}

	out := map[string][]*v1alpha1.Config{}

	for range 2 {
		// An ECDSA service account key: made in a millisecond, where RSA takes a second, and
		// as much a secret to a template.
		b, err := gensecrets.NewBundle(gensecrets.NewFixedClock(time.Time{}), im.contract, gensecrets.WithECDSAServiceAccountKey())
		if err != nil {
			return nil, err
		}

		for _, n := range c.Spec.Nodes {
			if _, ok := cuts[n.Name]; !ok {
				continue
			}

			m, err := render.One(c, &secrets.Bundle{Bundle: b, Throwaway: true}, n, render.Options{Installer: render.FactoryInstaller(ids)})
			if err != nil {
				return nil, err
			}

			cfg := m.Config.RawV1Alpha1()
			if im.contract.MultidocKubernetesConfigSupported() {
				cfg = alpha2View(m.Config, n.InstallDisk)
			}

			out[n.Name] = append(out[n.Name], cfg)
		}
	}

	return out, nil
}

// executeTemplate runs a template as talhelper's templating does, with the engine of
// topf's import (text/template without method calls): talhelper's templates read the
// config's fields, and one calling a method fails, to be reported.
func executeTemplate(text string, cfg *v1alpha1.Config) (string, error) {
	t, err := template.New("template").Funcs(sprig.FuncMap()).Parse(text)
	if err != nil {
		return "", err
	}

	var b bytes.Buffer
	if err := t.Execute(&b, cfg); err != nil {
		return "", err
	}

	return b.String(), nil
}

// addTemplated writes a node's rendered labels and annotations: operations on the v1alpha1
// document, or from the 1.14 contract a KubeNodeConfig (documentLayout).
func (im *mapping) addTemplated(rel, node string, ops []op) error {
	const comment = "# The node's templated labels and annotations, as talhelper renders them."

	if rest, docs := im.documentLayout(ops, false, node); len(docs) > 0 {
		return im.repo.AddDocs(rel, comment, docs)
	} else {
		return im.repo.AddYAML(rel, comment, rest)
	}
}
