package render

import (
	"sync"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
)

// PatchCache holds the patch files renders have loaded, by their bytes, so that a render
// of another state (a plan renders two, whose patch files are nearly all the same) parses
// none of them again. It is safe for the render workers' concurrent use.
//
// Sharing a loaded patch is sound because applying it never changes it: machinery's
// StrategicMerge merges into a clone of the config (merge.Merge and the documents' own
// Merge methods write only to the left side, the right documents it appends are clones),
// and an RFC 6902 patch's operations are only read (json-patch decodes a value into a node
// of its own); the nodes of one state already share every patch more than one of them uses.
//
// What a file loads to depends on its bytes alone: its name only places errors, so a
// patch is kept without it and handed out under the name each render asks with. A file
// that does not load is not kept: each state reports its own error, at its own place.
//
// It also keeps the config each generated node rendered to, by everything it was made from
// (nodeKey): a node of the other state made from the same is not rendered again. A config
// is shared as a patch is: neither a render, the rules nor a plan changes it (a plan
// redacts a clone).
type PatchCache struct {
	mu sync.Mutex
	// indexed holds patches loaded by loadPatch, unindexed those by loadUnindexed.
	indexed, unindexed map[string]*patch
	// ids counts the patches kept: each has its own id, for the nodes' keys.
	ids     int
	configs map[nodeKey]coreconfig.Provider
	// docs shares the documents the nodes of both states render alike.
	docs *docShare
}

// NewPatchCache returns an empty cache.
func NewPatchCache() *PatchCache {
	return &PatchCache{indexed: map[string]*patch{}, unindexed: map[string]*patch{}, configs: map[nodeKey]coreconfig.Provider{}, docs: newDocShare()}
}

// Forget lets go of every patch and config the cache holds: a plan that streams forgets
// a chunk's before the next. The patches more than one node uses stay with the renderers
// that loaded them; a file loaded again gets a new id, so no node is taken for another.
func (pc *PatchCache) Forget() {
	pc.mu.Lock()
	defer pc.mu.Unlock()

	clear(pc.indexed)
	clear(pc.unindexed)
	clear(pc.configs)
}

// load returns the patch data loads to, as file: from the cache when it holds the same
// bytes loaded the same way, else loaded and kept. A nil cache loads every time.
func (pc *PatchCache) load(file string, data []byte, unindexed bool) (*patch, error) {
	loadFn := loadPatch
	if unindexed {
		loadFn = loadUnindexed
	}

	if pc == nil {
		return loadFn(file, data)
	}

	kept := pc.indexed
	if unindexed {
		kept = pc.unindexed
	}

	pc.mu.Lock()
	p, ok := kept[string(data)]
	pc.mu.Unlock()

	if ok {
		return p.as(file), nil
	}

	p, err := loadFn(file, data)
	if err != nil {
		return nil, err
	}

	pc.mu.Lock()
	defer pc.mu.Unlock()

	// Another worker may have loaded the same bytes meanwhile: one id for them.
	if first, ok := kept[string(data)]; ok {
		return first.as(file), nil
	}

	pc.ids++
	p.id = pc.ids
	kept[string(data)] = p

	return p, nil
}

// as is the patch under another file's name: what it loaded to is shared, read only.
func (p *patch) as(file string) *patch {
	if p.file == file {
		return p
	}

	named := *p
	named.file = file

	return &named
}
