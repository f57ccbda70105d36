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
		at := fmt.Sprintf("%s.patches[%d]", kind, i)

		var (
			rel string
			ok  bool
		)

		if path, isFile := strings.CutPrefix(s, "@"); isFile {
			rel, ok = im.filePatch(path, kind, item.Line, at)
		} else {
			rel, ok = im.inlinePatch(s, fmt.Sprintf("patches/%s-%02d.yaml", kind, i+1), kind, item.Line, at)
		}

		if ok {
			out = append(out, rel)
		}
	}

	return out
}

// inlinePatch writes a patch written inline in talconfig.yaml as the file rel and says
// whether the node takes it; at is where it was written, kind what it patches.
func (im *mapping) inlinePatch(s, rel, kind string, line int, at string) (string, bool) {
	if isTemplate(s) {
		// The talconfig's variables are already substituted, as talhelper does first.
		return im.deferTemplate(rel, s, false, line, at), true
	}

	// The text as talhelper hands it to Talos: a newline added after a block scalar
	// that ends the patch would become part of its value.
	if err := im.repo.Add(rel, []byte(s)); err != nil {
		im.repo.Unsupported(line, "", kind+".patches", err.Error())

		return "", false
	}

	return rel, true
}

// filePatch brings an @file patch into the new repository under its own path and says
// whether the node takes it: an unreadable or empty file is reported and left out.
func (im *mapping) filePatch(path, kind string, line int, at string) (string, bool) {
	read, rel, ok := im.locate(path, line, "", at)
	if !ok {
		return "", false
	}

	raw, err := im.manifestFile(read)
	if err != nil {
		if !im.outside(err, line, at) {
			im.repo.Unsupported(line, "", at, err.Error()+"; not imported")
		}

		return "", false
	}

	if isTemplate(string(raw)) {
		// talhelper renders a patch file before it substitutes the environment in it.
		return im.deferTemplate(rel, string(raw), true, line, at), true
	}

	data, err := im.substitutePatch(read, raw)
	if err != nil {
		im.repo.Unsupported(line, "", at, err.Error()+"; not imported")

		return "", false
	}

	if len(bytes.TrimSpace(data)) == 0 {
		// talhelper skips an empty patch file; so does the import.
		im.repo.Mapped(finding.Info, line, "", at, rel+" is empty: talhelper skips it, and so does talops")

		return "", false
	}

	if err := im.repo.Add(rel, data); err != nil {
		im.repo.Unsupported(line, "", kind+".patches", err.Error())

		return "", false
	}

	return rel, true
}

// substitutePatch substitutes the environment in a patch file read with manifestFile (which
// refuses an encrypted one: talops would have to write it in clear), as talhelper does.
func (im *mapping) substitutePatch(rel string, data []byte) ([]byte, error) {
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
