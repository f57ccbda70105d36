package render

import (
	"bytes"
	"reflect"
	"sync"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/config"
	"github.com/siderolabs/talos/pkg/machinery/config/container"
	"github.com/siderolabs/talos/pkg/machinery/config/encoder"
	"github.com/siderolabs/talos/pkg/machinery/config/types/v1alpha1"
)

// encodeOptions are the options every rendered config is encoded with: no comments.
var encodeOptions = []encoder.Option{encoder.WithComments(encoder.CommentsDisabled)}

// maxVariants bounds the distinct documents of one kind and name kept to share: a document
// every node has its own of (a HostnameConfig) is compared with this many at most.
const maxVariants = 4

// docShare lets the configs of a state's nodes share the documents they render alike.
// Every patch a node applies merges into a clone of its whole config, so nodes that differ
// in one document (their HostnameConfig) each hold a copy of every other one, the v1alpha1
// document with its certificates first: kept for the rules and a plan, those copies are
// most of a large cluster's memory. A rendered document equal to one kept is replaced by it.
// Sharing is sound as a config kept in the PatchCache is: nothing changes a rendered config.
//
// A document kept is also encoded once: the nodes that share it share its encoding.
type docShare struct {
	mu   sync.Mutex
	kept map[string][]config.Document
	// encodings are the encodings of the documents kept, once one was asked for.
	encodings map[config.Document][]byte
}

func newDocShare() *docShare {
	return &docShare{kept: map[string][]config.Document{}, encodings: map[config.Document][]byte{}}
}

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
		if !shareable(d) {
			continue
		}

		id := documentID(d)

		s.mu.Lock()
		variants := s.kept[id]
		s.mu.Unlock()

		if k := equalTo(variants, d); k != nil {
			out[i], shared = k, shared || k != d

			continue
		}

		if len(variants) < maxVariants {
			s.mu.Lock()
			s.kept[id] = append(s.kept[id], d)
			s.encodings[d] = nil
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

// shareable says whether d is a pointer, as machinery's documents are: a document of
// another shape could not be a map key, nor be told apart from an equal copy.
func shareable(d config.Document) bool {
	return reflect.ValueOf(d).Kind() == reflect.Pointer
}

// documentID names a document as a container tells its documents apart: kind and name.
func documentID(d config.Document) string {
	id := d.Kind() + "/"
	if named, ok := d.(config.NamedDocument); ok {
		id += named.Name()
	}

	return id
}

// encode is cfg encoded as machinery's container encodes it (its v1alpha1 document, then
// each other one after "---"), each document kept encoded once for every config that holds
// it. A config it does not know the layout of is encoded by machinery.
func (s *docShare) encode(cfg coreconfig.Provider) ([]byte, error) {
	c, ok := cfg.(*container.Container)
	if s == nil || !ok {
		return cfg.EncodeBytes(encodeOptions...)
	}

	var docs []config.Document
	if v1 := c.RawV1Alpha1(); v1 != nil {
		docs = append(docs, v1)
	}

	for _, d := range c.Documents() {
		switch {
		case d.Kind() != v1alpha1.Version:
			docs = append(docs, d)
		case d != config.Document(c.RawV1Alpha1()):
			// A v1alpha1 delete selector: placed otherwise by each of machinery's encoders.
			return cfg.EncodeBytes(encodeOptions...)
		}
	}

	var buf bytes.Buffer

	for _, d := range docs {
		if buf.Len() > 0 {
			buf.WriteString("---\n")
		}

		data, err := s.encoded(d)
		if err != nil {
			return nil, err
		}

		buf.Write(data)
	}

	return buf.Bytes(), nil
}

// encoded is d's encoding: kept once made when d is a document kept.
func (s *docShare) encoded(d config.Document) ([]byte, error) {
	if !shareable(d) {
		return encoder.NewEncoder(d, encodeOptions...).Encode()
	}

	s.mu.Lock()
	data, kept := s.encodings[d]
	s.mu.Unlock()

	if data != nil {
		return data, nil
	}

	data, err := encoder.NewEncoder(d, encodeOptions...).Encode()
	if err != nil {
		return nil, err
	}

	if kept {
		s.mu.Lock()
		s.encodings[d] = data
		s.mu.Unlock()
	}

	return data, nil
}
