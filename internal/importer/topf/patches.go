package topf

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"
	"sync"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/importer"
)

// patchName is topf's test of a patch file's name. It is not anchored, as topf's is:
// "a.yaml.bak" is a patch too.
var patchName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`.*\.ya?ml(\.tpl)?`) })

// item is one patch file as one node gets it: its source path and its contents once
// rendered and emptied of empty documents (nil: the node gets nothing from it).
type item struct {
	src, out string
	data     []byte
	template bool
}

// scopeFiles lists the patch files of a directory of patchesDir, in topf's order.
func (im *mapping) scopeFiles(dir string) ([]string, error) {
	rel := path.Join(im.patchesDir, dir)

	all, err := im.in.ListFiles(rel)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", rel, err)
	}

	var out []string

	for _, f := range all {
		if patchName().MatchString(path.Base(f)) {
			out = append(out, f)
		}
	}

	return out, nil
}

// items are what the files give one node, in order.
func (im *mapping) items(files []string, n *node, ctx *patchContext) ([]item, error) {
	out := make([]item, 0, len(files))

	for _, f := range files {
		it, err := im.item(f, n, ctx)
		if err != nil {
			return nil, err
		}

		if it.data != nil {
			out = append(out, it)
		}
	}

	return out, nil
}

func (im *mapping) item(f string, n *node, ctx *patchContext) (item, error) {
	raw, err := im.in.ReadFile(f)
	if err != nil {
		return item{}, fmt.Errorf("read %s: %w", f, err)
	}

	it := item{src: f, out: f, template: strings.HasSuffix(f, ".tpl")}

	if it.template {
		it.out = strings.TrimSuffix(f, ".tpl")

		rendered, err := im.tmpl.render(path.Base(f), raw, ctx)
		if err != nil {
			im.unsupportedOnce(f, 0, n.Host, "", "the template does not render here ("+importer.OneLine(err)+"); not imported: render it and add the result as a patch")

			return it, nil
		}

		raw = rendered
	} else if !im.checked[f] {
		im.checked[f] = true
		im.checkPlain(f, raw)
	}

	if isSOPS(raw) {
		return it, nil
	}

	it.data, err = patchDocs(raw)
	if err != nil {
		return item{}, &cluster.InputError{File: im.at(f), Msg: "as rendered for node " + n.Host + ": " + err.Error()}
	}

	return it, nil
}

// checkPlain reports what topf resolves in a plain file and talops does not.
func (im *mapping) checkPlain(f string, raw []byte) {
	if isSOPS(raw) {
		im.unsupportedOnce(f, 0, "", "sops", "a SOPS-encrypted patch: talops keeps patches in clear; not imported (decrypt it into a patch, moving its secrets out)")
	}

	if i := bytes.Index(raw, []byte("ref+")); i >= 0 {
		im.unsupportedOnce(f, 1+bytes.Count(raw[:i], []byte("\n")), "", "", "a vals reference: talops resolves none, so the text is imported as written")
	}
}

// isSOPS says whether a file is a SOPS-encrypted YAML document.
func isSOPS(raw []byte) bool {
	var m map[string]any
	if yaml.Unmarshal(raw, &m) != nil {
		return false
	}

	s, ok := m["sops"].(map[string]any)

	return ok && s["mac"] != nil
}

// patchDocs keeps the non-empty documents of a patch, as topf does (nil: none); a
// document that is not a mapping is refused, as topf refuses it. The text stays as written
// when every document counts.
func patchDocs(raw []byte) ([]byte, error) {
	dec := yaml.NewDecoder(bytes.NewReader(raw))

	var (
		kept    []*yaml.Node
		dropped bool
	)

	for i := 0; ; i++ {
		var doc yaml.Node

		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}

		if err != nil {
			return nil, fmt.Errorf("document %d: %s", i, importer.OneLine(err))
		}

		body := doc.Content[0]

		switch {
		case body.Kind == yaml.ScalarNode && body.Tag == "!!null":
			dropped = true
		case body.Kind == yaml.SequenceNode:
			return nil, fmt.Errorf("document %d is a list (a JSON patch), which topf refuses", i)
		case body.Kind != yaml.MappingNode:
			return nil, fmt.Errorf("document %d is not a mapping", i)
		case len(body.Content) == 0:
			dropped = true
		default:
			kept = append(kept, &doc)
		}
	}

	if len(kept) == 0 {
		return nil, nil
	}

	if !dropped {
		return raw, nil
	}

	out, err := importer.EncodeNodes(kept)
	if err != nil {
		return nil, fmt.Errorf("patch: %w", err)
	}

	return out, nil
}

// sameForAll says whether every node got the same items.
func sameForAll(per [][]item) bool {
	for _, its := range per[1:] {
		if len(its) != len(per[0]) {
			return false
		}

		for i := range its {
			if its[i].src != per[0][i].src || !bytes.Equal(its[i].data, per[0][i].data) {
				return false
			}
		}
	}

	return true
}
