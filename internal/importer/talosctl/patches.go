package talosctl

import (
	"bytes"
	"fmt"

	"github.com/siderolabs/talos/pkg/machinery/config/config"
	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/scaffold"
	"github.com/talops/talops/internal/secrets"
)

// patches renders each node as talops generates it with the configs' own secrets, and
// writes what its config differs by: RFC 6902 operations on the v1alpha1 document
// (nodes/<node>.yaml) and the documents talops does not generate
// (nodes/<node>-documents.yaml).
func patches(spec cluster.Spec, res *Result, nodes []*node) ([]scaffold.File, error) {
	talops, err := scaffold.ImportedSpec(spec, "machine configs")
	if err != nil {
		return nil, err
	}

	// The secrets file is never read: the bundle is handed to the renderer.
	c, err := cluster.Load("import", cluster.MapFiles{cluster.FileName: talops, spec.Secrets: []byte("{}\n")})
	if err != nil {
		return nil, fmt.Errorf("import: the talops.yaml made does not load: %w", err)
	}

	b := &secrets.Bundle{Bundle: res.Bundle}

	var files []scaffold.File

	for i, n := range nodes {
		m, err := render.One(c, b, c.Spec.Nodes[i], render.Options{Installer: render.FactoryInstaller(nil)})
		if err != nil {
			return nil, fmt.Errorf("import: render node %s as talops generates it: %w", n.spec.Name, err)
		}

		ops, docs, err := nodeDiff(m, n, res)
		if err != nil {
			return nil, err
		}

		for _, o := range ops {
			for _, p := range secretPaths(o) {
				res.Findings = append(res.Findings, finding.Finding{
					Severity: finding.Warning, Code: CodeMapped, File: n.src.Name, Node: n.spec.Name, Path: p,
					Message: "looks like a secret outside the bundle: it is now in nodes/" + n.spec.Name + ".yaml in clear; keep that file out of Git or move the value out",
				})
			}
		}

		if len(ops) > 0 {
			f, err := yamlFile("nodes/"+n.spec.Name+".yaml", "# What "+n.src.Name+" differs by from the config talops generates for the node.", []any{ops})
			if err != nil {
				return nil, err
			}

			files = append(files, f)
			n.spec.Patches = append(n.spec.Patches, f.Path)
		}

		if len(docs) > 0 {
			f, err := yamlFile("nodes/"+n.spec.Name+"-documents.yaml", "# The documents of "+n.src.Name+" talops does not generate.", docs)
			if err != nil {
				return nil, err
			}

			files = append(files, f)
			n.spec.Patches = append(n.spec.Patches, f.Path)
		}
	}

	return files, nil
}

// nodeDiff compares talops' generated config of a node with its source config.
func nodeDiff(m *render.Machine, n *node, res *Result) ([]op, []any, error) {
	base, err := docMaps(m.Config.Documents())
	if err != nil {
		return nil, nil, err
	}

	target, err := docMaps(n.cfg.Documents())
	if err != nil {
		return nil, nil, err
	}

	var (
		ops  []op
		docs []any
	)

	for _, k := range target.order {
		t := target.docs[k]

		b, ok := base.docs[k]

		switch {
		case k == "v1alpha1":
			ops = diff(b, t, "")
		case !ok:
			docs = append(docs, t)
		default:
			d := diff(b, t, "")

			switch {
			case len(d) == 0:
			case mergeable(d):
				// Merged into talops' document, the config's own gives exactly it.
				docs = append(docs, t)
			default:
				res.Findings = append(res.Findings, finding.Finding{
					Severity: finding.Warning, Code: CodeUnsupported, File: n.src.Name, Node: n.spec.Name, Path: k,
					Message: "differs from the document talops generates by a removed field or a list, which a merge patch cannot express: not imported (write the difference as a patch)",
				})
			}
		}
	}

	for _, k := range base.order {
		if _, ok := target.docs[k]; !ok {
			res.Findings = append(res.Findings, finding.Finding{
				Severity: finding.Warning, Code: CodeUnsupported, File: n.src.Name, Node: n.spec.Name, Path: k,
				Message: "talops generates this document and the config has none: the imported node keeps it",
			})
		}
	}

	return ops, docs, nil
}

// docSet is a config's documents as plain values, keyed by kind and name ("v1alpha1" for
// the main document).
type docSet struct {
	docs  map[string]map[string]any
	order []string
}

func docMaps(docs []config.Document) (docSet, error) {
	set := docSet{docs: map[string]map[string]any{}}

	for _, doc := range docs {
		m, err := toMap(doc)
		if err != nil {
			return docSet{}, fmt.Errorf("import: encode a %s document: %w", doc.Kind(), err)
		}

		k := doc.Kind()

		switch named, ok := doc.(config.NamedDocument); {
		case doc.Kind() == "v1alpha1" || m["version"] == "v1alpha1" && m["apiVersion"] == nil:
			k = "v1alpha1"
		case ok && named.Name() != "":
			k += " " + named.Name()
		}

		set.docs[k] = m
		set.order = append(set.order, k)
	}

	return set, nil
}

func yamlFile(rel, comment string, docs []any) (scaffold.File, error) {
	var b bytes.Buffer

	b.WriteString(comment + "\n")

	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)

	for _, d := range docs {
		if err := enc.Encode(d); err != nil {
			return scaffold.File{}, fmt.Errorf("import: encode %s: %w", rel, err)
		}
	}

	return scaffold.File{Path: rel, Data: b.Bytes()}, enc.Close()
}

// mergeable says a strategic merge of the new document into the generated one gives the
// new one: it only adds or changes values, none of them lists (a merge appends to lists).
func mergeable(ops []op) bool {
	for _, o := range ops {
		if o["op"] == "remove" {
			return false
		}

		if _, list := o["value"].([]any); list {
			return false
		}
	}

	return true
}
