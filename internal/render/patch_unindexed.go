package render

import (
	"strings"
	"unicode"

	"github.com/siderolabs/talos/pkg/machinery/config/config"
	"github.com/siderolabs/talos/pkg/machinery/config/configpatcher"

	"github.com/talops/talops/internal/yamlpos"
)

// loadUnindexed loads a node's own patch for a render that keeps only the encoding
// (Options.EncodeOnly): there the index of where the file's keys are serves only to place
// errors, and building it costs a tenth of a render. A strategic merge patch that machinery
// loads, whose documents' names are plain, is used without one (a merge error indexes the
// file then); any other (one that does not load, an RFC 6902 patch, a name that
// checkDocNames refuses) goes through loadPatch, which finds and places its errors as for
// every other render.
func loadUnindexed(file string, data []byte) (*patch, error) {
	// Machinery's decoder would follow every alias: a file over the decoding budget goes
	// through loadPatch, which refuses it at its line.
	if yamlpos.Check(data) != nil {
		return loadPatch(file, data)
	}

	p, err := configpatcher.LoadPatch(data)
	if err != nil {
		return loadPatch(file, data)
	}

	sm, ok := p.(configpatcher.StrategicMergePatch)
	if !ok || !plainNames(sm.Documents()) {
		return loadPatch(file, data)
	}

	return &patch{file: file, p: p, data: data}, nil
}

// plainNames is false when there is no document, or a document's name holds a control
// character (what checkDocNames refuses, and an empty file is what loadPatch refuses).
func plainNames(docs []config.Document) bool {
	if len(docs) == 0 {
		return false
	}

	for _, d := range docs {
		if n, ok := d.(config.NamedDocument); ok && strings.ContainsFunc(n.Name(), unicode.IsControl) {
			return false
		}
	}

	return true
}

// indexed is the patch's index, built from its bytes when it was loaded without one.
func (p *patch) indexed() *yamlpos.Index {
	if p.index == nil && p.data != nil {
		if ix, err := yamlpos.Parse(p.data); err == nil {
			return ix
		}
	}

	return p.index
}
