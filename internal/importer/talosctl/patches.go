package talosctl

import (
	"fmt"

	"github.com/siderolabs/talos/pkg/machinery/config/config"
	gensecrets "github.com/siderolabs/talos/pkg/machinery/config/generate/secrets"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/importer"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/scaffold"
	"github.com/talops/talops/internal/secrets"
)

// patches renders each node as talops generates it with the configs' own secrets, and
// writes what its config differs by: RFC 6902 operations on the v1alpha1 document
// (nodes/<node>.yaml) and the documents talops does not generate
// (nodes/<node>-documents.yaml).
func patches(spec cluster.Spec, bundle *gensecrets.Bundle, repo *importer.Repo, nodes []*node) error {
	talops, err := scaffold.ImportedSpec(spec, "machine configs")
	if err != nil {
		return err
	}

	// The secrets file is never read: the bundle is handed to the renderer.
	c, err := cluster.Load("import", cluster.MapFiles{cluster.FileName: talops, spec.Secrets: []byte("{}\n")})
	if err != nil {
		return fmt.Errorf("import: the talops.yaml made does not load: %w", err)
	}

	b := &secrets.Bundle{Bundle: bundle}

	for i, n := range nodes {
		m, err := render.One(c, b, c.Spec.Nodes[i], render.Options{Installer: render.FactoryInstaller(nil)})
		if err != nil {
			return fmt.Errorf("import: render node %s as talops generates it: %w", n.spec.Name, err)
		}

		ops, docs, err := nodeDiff(m, n, repo)
		if err != nil {
			return err
		}

		for _, o := range ops {
			for _, p := range secretPaths(o) {
				repo.Report(finding.Finding{
					Severity: finding.Warning, Code: CodeMapped, File: n.src.Name, Node: n.spec.Name, Path: p,
					Message: "looks like a secret outside the bundle: it is now in nodes/" + n.spec.Name + ".yaml in clear; keep that file out of Git or move the value out",
				})
			}
		}

		if len(ops) > 0 {
			rel := "nodes/" + n.spec.Name + ".yaml"
			if err := repo.AddDocs(rel, "# What "+n.src.Name+" differs by from the config talops generates for the node.", []any{ops}); err != nil {
				return fmt.Errorf("import: %w", err)
			}

			n.spec.Patches = append(n.spec.Patches, rel)
		}

		if len(docs) > 0 {
			rel := "nodes/" + n.spec.Name + "-documents.yaml"
			if err := repo.AddDocs(rel, "# The documents of "+n.src.Name+" talops does not generate.", docs); err != nil {
				return fmt.Errorf("import: %w", err)
			}

			n.spec.Patches = append(n.spec.Patches, rel)
		}
	}

	return nil
}

// nodeDiff compares talops' generated config of a node with its source config.
func nodeDiff(m *render.Machine, n *node, repo *importer.Repo) ([]op, []any, error) {
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
				repo.Report(finding.Finding{
					Severity: finding.Warning, Code: CodeUnsupported, File: n.src.Name, Node: n.spec.Name, Path: k,
					Message: "differs from the document talops generates by a removed field or a list, which a merge patch cannot express: not imported (write the difference as a patch)",
				})
			}
		}
	}

	for _, k := range base.order {
		if _, ok := target.docs[k]; !ok {
			repo.Report(finding.Finding{
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
