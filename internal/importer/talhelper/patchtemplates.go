package talhelper

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/siderolabs/talos/pkg/machinery/config/types/v1alpha1"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/importer"
)

// patchTemplate is a patch or an extra manifest whose text is a talhelper template (Go
// templates with sprig's functions, on the node's v1alpha1 config). talhelper renders it
// for each node on the config as it stands before the node's set of patches that holds it
// (the role's and the node's; the global ones; the extra manifests); talops has no
// templates, so the import writes what talhelper renders.
type patchTemplate struct {
	rel, text string
	// substitute says the environment is substituted in the rendered text: a patch file's,
	// which talhelper renders before it substitutes (an inline patch's text was substituted
	// with the talconfig).
	substitute bool
	line       int
	field      string
}

// isTemplate says talhelper's templating changes a text: only an action does.
func isTemplate(text string) bool {
	return strings.Contains(text, "{{")
}

// deferTemplate keeps a templated patch to render once the nodes' configs are known, and
// returns the path that stands for it in the nodes' patch lists until then.
func (im *mapping) deferTemplate(rel, text string, substitute bool, line int, field string) string {
	if _, ok := im.patchTemplates[rel]; !ok {
		im.patchTemplates[rel] = &patchTemplate{rel: rel, text: text, substitute: substitute, line: line, field: field}
	}

	return rel
}

// setStart is where a node's set of patches starts in its patch list (after the sets
// before it when it is empty).
func (im *mapping) setStart(n cluster.Node, set int) int {
	sets := im.patchSets[n.Name]
	for s := set; s < len(sets); s++ {
		if len(sets[s]) > 0 {
			if at := slices.Index(n.Patches, sets[s][0]); at >= 0 {
				return at
			}
		}
	}

	return len(n.Patches)
}

// renderPatchTemplates writes the templated patches as talhelper renders them, set after
// set, each on the configs that the sets before it (already rendered) make. A template
// that renders the same text on every node that has it stays one file at its path; one
// that renders otherwise becomes a file per node, nodes/<node>-<name>. A template that
// does not render, or whose text reads a secret (or the clock, or chance: it differs
// between two throwaway bundles), is a finding and not imported.
func (im *mapping) renderPatchTemplates(spec *cluster.Spec) {
	if len(im.patchTemplates) == 0 {
		return
	}

	for set := range 3 {
		cuts := map[string]int{}

		for _, n := range spec.Nodes {
			if slices.ContainsFunc(im.patchSets[n.Name][set], im.isPending) {
				cuts[n.Name] = im.setStart(n, set)
			}
		}

		if len(cuts) == 0 {
			continue
		}

		configs, err := im.stageConfigs(spec, cuts)
		if err != nil {
			im.dropPending(spec, set, "a talhelper template, not rendered ("+importer.OneLine(err)+"): not imported")

			continue
		}

		im.renderSet(spec, set, configs)
	}
}

// isPending says a patch is a template not rendered yet.
func (im *mapping) isPending(rel string) bool {
	_, ok := im.patchTemplates[rel]

	return ok
}

// renderSet renders the templates of one set on every node that has them.
func (im *mapping) renderSet(spec *cluster.Spec, set int, configs map[string][]*v1alpha1.Config) {
	for _, rel := range im.setTemplates(spec, set) {
		t := im.patchTemplates[rel]
		texts := map[string]string{}
		failed := ""

		for _, n := range spec.Nodes {
			if !slices.Contains(im.patchSets[n.Name][set], rel) {
				continue
			}

			text, err := im.renderOn(t, configs[n.Name])
			if err != nil {
				failed = err.Error()

				break
			}

			texts[n.Name] = text
		}

		delete(im.patchTemplates, rel)

		if failed != "" {
			im.repo.Unsupported(t.line, "", t.field, failed+": not imported")
			removePatch(spec, rel)

			continue
		}

		im.writeRendered(spec, t, texts)
	}
}

// setTemplates are the pending templates of a set, in the order the nodes name them.
func (im *mapping) setTemplates(spec *cluster.Spec, set int) []string {
	var out []string

	for _, n := range spec.Nodes {
		for _, rel := range im.patchSets[n.Name][set] {
			if im.isPending(rel) && !slices.Contains(out, rel) {
				out = append(out, rel)
			}
		}
	}

	return out
}

// renderOn renders a template on a node's two configs: both must give the same text.
func (im *mapping) renderOn(t *patchTemplate, configs []*v1alpha1.Config) (string, error) {
	var texts []string

	for _, cfg := range configs {
		text, err := executeTemplate(t.text, cfg)
		if err != nil {
			return "", fmt.Errorf("a talhelper template that does not render (%s)", importer.OneLine(err))
		}

		texts = append(texts, text)
	}

	if len(texts) != 2 || texts[0] != texts[1] {
		return "", fmt.Errorf("a talhelper template whose text reads a secret (or the clock, or chance): talops writes no secret into a patch")
	}

	if !t.substitute {
		return texts[0], nil
	}

	data, err := im.substitutePatch(t.rel, []byte(texts[0]))
	if err != nil {
		return "", err
	}

	return string(data), nil
}

// writeRendered writes a rendered template: one file when every node rendered the same
// text, else one per node, named in that node's patch list in place of the template.
func (im *mapping) writeRendered(spec *cluster.Spec, t *patchTemplate, texts map[string]string) {
	var (
		first string
		seen  bool
	)

	same := true

	for _, text := range texts {
		if !seen {
			first, seen = text, true
		}

		same = same && text == first
	}

	if same {
		if err := im.repo.Add(t.rel, []byte(first)); err != nil {
			im.repo.Unsupported(t.line, "", t.field, err.Error())
			removePatch(spec, t.rel)
		}

		return
	}

	for i := range spec.Nodes {
		n := &spec.Nodes[i]

		text, ok := texts[n.Name]
		if !ok {
			continue
		}

		rel := "nodes/" + n.Name + "-" + path.Base(t.rel)
		if err := im.repo.Add(rel, []byte(text)); err != nil {
			im.repo.Unsupported(t.line, n.Name, t.field, err.Error())
			n.Patches = slices.DeleteFunc(n.Patches, func(p string) bool { return p == t.rel })

			continue
		}

		if at := slices.Index(n.Patches, t.rel); at >= 0 {
			n.Patches[at] = rel
		}
	}
}

// dropPending reports a set's templates as not imported and takes them off the nodes.
func (im *mapping) dropPending(spec *cluster.Spec, set int, msg string) {
	for _, rel := range im.setTemplates(spec, set) {
		t := im.patchTemplates[rel]
		im.repo.Unsupported(t.line, "", t.field, msg)
		removePatch(spec, rel)
		delete(im.patchTemplates, rel)
	}
}

// removePatch takes a patch off every node.
func removePatch(spec *cluster.Spec, rel string) {
	for i := range spec.Nodes {
		spec.Nodes[i].Patches = slices.DeleteFunc(spec.Nodes[i].Patches, func(p string) bool { return p == rel })
	}
}
