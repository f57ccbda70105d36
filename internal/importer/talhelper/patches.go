package talhelper

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/importer"
)

// patchList turns a talhelper patches list into patch files of the new repository, in
// order: an @file patch keeps its path, an inline one gets a file named after where it
// was written (kind-NN.yaml).
func (im *mapping) patchList(n *yaml.Node, kind string) []string {
	var out []string

	for i, item := range items(n) {
		s := scalar(item)
		line := item.Line

		if strings.Contains(s, "{{") {
			im.repo.Unsupported(line, "", fmt.Sprintf("%s.patches[%d]", kind, i), "talhelper templates ({{ }}) have no talops equivalent; the patch is imported as written")
		}

		if !strings.HasPrefix(s, "@") {
			rel := fmt.Sprintf("patches/%s-%02d.yaml", kind, i+1)
			// The text as talhelper hands it to Talos: a newline added after a block scalar
			// that ends the patch would become part of its value.
			if err := im.repo.Add(rel, []byte(s)); err != nil {
				im.repo.Unsupported(line, "", kind+".patches", err.Error())

				continue
			}

			out = append(out, rel)

			continue
		}

		rel, err := importer.CleanRel(strings.TrimPrefix(s, "@"), talconfigDir)
		if err != nil {
			im.repo.Unsupported(line, "", fmt.Sprintf("%s.patches[%d]", kind, i), "the patch file is "+err.Error()+"; not imported")

			continue
		}

		data, err := im.patchFile(rel)
		if err != nil {
			im.repo.Unsupported(line, "", fmt.Sprintf("%s.patches[%d]", kind, i), err.Error()+"; not imported")

			continue
		}

		if strings.Contains(string(data), "{{") {
			im.repo.Unsupported(line, "", fmt.Sprintf("%s.patches[%d]", kind, i), rel+" uses talhelper templates ({{ }}), which talops has none of; the patch is imported as written")
		}

		if len(bytes.TrimSpace(data)) == 0 {
			// talhelper skips an empty patch file; so does the import.
			im.repo.Mapped(finding.Info, line, "", fmt.Sprintf("%s.patches[%d]", kind, i), rel+" is empty: talhelper skips it, and so does talops")

			continue
		}

		if err := im.repo.Add(rel, data); err != nil {
			im.repo.Unsupported(line, "", kind+".patches", err.Error())

			continue
		}

		out = append(out, rel)
	}

	return out
}

// patchFile reads a patch file and substitutes the environment in it, as talhelper does.
// An encrypted patch is refused: talops would have to write it in clear.
func (im *mapping) patchFile(rel string) ([]byte, error) {
	data, err := im.manifestFile(rel)
	if err != nil {
		return nil, err
	}

	if !strings.Contains(string(data), "$") {
		return data, nil
	}

	// Only a patch that uses variables is re-encoded (losing its comments).
	var docs []*yaml.Node

	dec := yaml.NewDecoder(bytes.NewReader(data))

	for {
		var d yaml.Node
		if err := dec.Decode(&d); err != nil {
			break
		}

		docs = append(docs, &d)
	}

	changed := false

	for _, d := range docs {
		c, err := im.substituteIn(d, rel)
		if err != nil {
			return nil, err
		}

		changed = c || changed
	}

	if !changed {
		return data, nil
	}

	out, err := importer.EncodeNodes(docs)
	if err != nil {
		return nil, fmt.Errorf("re-encode %s: %w", rel, err)
	}

	return out, nil
}
