package render

import (
	"reflect"
	"sync"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/config"
	"github.com/siderolabs/talos/pkg/machinery/config/container"
)

// maxVariants bounds the distinct documents of one kind and name kept to share: a document
// every node has its own of (a HostnameConfig) is compared with this many at most.
const maxVariants = 4

// docShare lets the configs of a state's nodes share the documents they render alike.
// Every patch a node applies merges into a clone of its whole config, so nodes that differ
// in one document (their HostnameConfig) each hold a copy of every other one, the v1alpha1
// document with its certificates first: kept for the rules and a plan, those copies are
// most of a large cluster's memory. A rendered document equal to one kept is replaced by it.
// Sharing is sound as a config kept in the PatchCache is: nothing changes a rendered config.
type docShare struct {
	mu   sync.Mutex
	kept map[string][]config.Document
}

func newDocShare() *docShare { return &docShare{kept: map[string][]config.Document{}} }

// share returns cfg with each document equal to one kept replaced by it, and keeps those
// it had none equal to. A config it cannot rebuild is returned as it is.
func (s *docShare) share(cfg coreconfig.Provider) coreconfig.Provider {
	c, ok := cfg.(*container.Container)
	if s == nil || !ok || c.Readonly() {
		return cfg
	}

	docs := c.Documents()
	out := make([]config.Document, len(docs))
	shared := false

	for i, d := range docs {
		out[i] = d
		id := documentID(d)

		s.mu.Lock()
		variants := s.kept[id]
		s.mu.Unlock()

		if k := equalTo(variants, d); k != nil {
			out[i], shared = k, true

			continue
		}

		if len(variants) < maxVariants {
			s.mu.Lock()
			s.kept[id] = append(s.kept[id], d)
			s.mu.Unlock()
		}
	}

	if !shared {
		return cfg
	}

	rebuilt, err := container.New(out...)
	if err != nil {
		return cfg
	}

	return rebuilt
}

// equalTo is the document of variants equal to d, or nil.
func equalTo(variants []config.Document, d config.Document) config.Document {
	for _, v := range variants {
		if v == d || reflect.DeepEqual(v, d) {
			return v
		}
	}

	return nil
}

// documentID names a document as a container tells its documents apart: kind and name.
func documentID(d config.Document) string {
	id := d.Kind() + "/"
	if named, ok := d.(config.NamedDocument); ok {
		id += named.Name()
	}

	return id
}
