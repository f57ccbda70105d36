package plan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"sort"
	"strings"

	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/config"
	"github.com/siderolabs/talos/pkg/machinery/config/encoder"
	"github.com/siderolabs/talos/pkg/machinery/config/types/v1alpha1"
	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/catalog"
)

// changes lists what differs between two configs.
type changes struct {
	// paths are the changed v1alpha1 fields (maps walked, lists compared whole).
	paths []string
	// removedFromLists holds list paths that lost an item (not only gained ones).
	removedFromLists map[string]bool
	// oneSided holds sections present in one config only.
	oneSided map[string]bool
	// gone holds the changed fields the new config no longer has.
	gone map[string]bool
	// otherDocs counts other documents added, removed or changed.
	otherDocs int
	// docKinds are the kinds of those documents, with how they changed.
	docKinds []docChange
}

type docChange struct {
	kind, name, how string // how: added, removed, changed
	// sameEffect is a document that only writes out what the node ran without it (talops
	// migrate keeps an old contract's default so): nothing it governs changes.
	sameEffect bool
}

// changedPaths finds what differs between the configs of two states of a node; oldData
// and newData are their canonical encodings (nil for no config).
func changedPaths(old, new coreconfig.Provider, oldData, newData []byte) (changes, error) {
	ch := changes{removedFromLists: map[string]bool{}, oneSided: map[string]bool{}, gone: map[string]bool{}}

	oldV1, oldDocs, err := split(old, oldData)
	if err != nil {
		return ch, err
	}

	newV1, newDocs, err := split(new, newData)
	if err != nil {
		return ch, err
	}

	walkDiff(oldV1, newV1, "", &ch)
	sort.Strings(ch.paths)

	for id, o := range oldDocs {
		n, ok := newDocs[id]

		switch {
		case !ok:
			ch.docKinds = append(ch.docKinds, docChange{kind: id.kind, name: id.name, how: "removed", sameEffect: sameEffect(id.kind, old, new)})
		case !reflect.DeepEqual(o, n):
			ch.docKinds = append(ch.docKinds, docChange{kind: id.kind, name: id.name, how: "changed", sameEffect: sameEffect(id.kind, old, new)})
		}
	}

	for id := range newDocs {
		if _, ok := oldDocs[id]; !ok {
			ch.docKinds = append(ch.docKinds, docChange{kind: id.kind, name: id.name, how: "added", sameEffect: sameEffect(id.kind, old, new)})
		}
	}

	slices.SortFunc(ch.docKinds, func(a, b docChange) int {
		return strings.Compare(a.kind+"/"+a.name, b.kind+"/"+b.name)
	})

	ch.otherDocs = len(ch.docKinds)

	return ch, nil
}

type docID struct{ kind, name string }

// split decodes a config into its v1alpha1 document as a generic tree and the other
// documents keyed by kind and name, so that changes are found on canonical encodings.
// data is the config's canonical encoding, decoded once; a config whose documents are not
// encoded in the order Documents lists them has each document encoded on its own.
func split(cfg coreconfig.Provider, data []byte) (map[string]any, map[docID]any, error) {
	v1 := map[string]any{}
	others := map[docID]any{}

	if cfg == nil {
		return v1, others, nil
	}

	docs := encodingOrder(cfg.Documents())

	trees, err := decodeAll(data)
	if err != nil || len(trees) != len(docs) || docs == nil {
		if trees, err = decodeEach(cfg.Documents()); err != nil {
			return nil, nil, err
		}

		docs = cfg.Documents()
	}

	for i, doc := range docs {
		if _, ok := doc.(*v1alpha1.Config); ok {
			v1 = trees[i]

			continue
		}

		id := docID{kind: doc.Kind()}
		if named, ok := doc.(config.NamedDocument); ok {
			id.name = named.Name()
		}

		others[id] = trees[i]
	}

	return v1, others, nil
}

// encodingOrder lists docs in the order a config encodes them: the v1alpha1 document
// first, then the others as Documents lists them. It is nil when that order is not known
// (a v1alpha1 delete, which Documents lists before the v1alpha1 document).
func encodingOrder(docs []config.Document) []config.Document {
	out := make([]config.Document, 0, len(docs))

	for _, doc := range docs {
		switch _, ok := doc.(*v1alpha1.Config); {
		case ok:
			out = slices.Insert(out, 0, doc)
		case doc.Kind() == v1alpha1.Version:
			return nil
		default:
			out = append(out, doc)
		}
	}

	return out
}

// decodeAll decodes every document of a YAML stream as a generic tree.
func decodeAll(data []byte) ([]map[string]any, error) {
	var out []map[string]any

	dec := yaml.NewDecoder(bytes.NewReader(data))

	for {
		var tree map[string]any

		err := dec.Decode(&tree)
		if errors.Is(err, io.EOF) {
			return out, nil
		}

		if err != nil {
			return nil, fmt.Errorf("decode config: %w", err)
		}

		out = append(out, tree)
	}
}

// decodeEach encodes and decodes each document on its own.
func decodeEach(docs []config.Document) ([]map[string]any, error) {
	out := make([]map[string]any, 0, len(docs))

	for _, doc := range docs {
		data, err := encoder.NewEncoder(doc, encoder.WithComments(encoder.CommentsDisabled)).Encode()
		if err != nil {
			return nil, fmt.Errorf("encode %s document: %w", doc.Kind(), err)
		}

		var tree map[string]any
		if err := yaml.Unmarshal(data, &tree); err != nil {
			return nil, fmt.Errorf("decode %s document: %w", doc.Kind(), err)
		}

		out = append(out, tree)
	}

	return out, nil
}

func walkDiff(a, b any, path string, ch *changes) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)

	// A section present on one side only is walked against an empty one, so that the
	// paths name the fields (machine.kernel.modules, not machine.kernel): the reboot
	// rules are written per field.
	switch {
	case aok && b == nil:
		bm, bok = map[string]any{}, true
		ch.oneSided[path] = true
	case bok && a == nil:
		am, aok = map[string]any{}, true
		ch.oneSided[path] = true
	}

	if aok && bok {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}

		for k := range bm {
			keys[k] = true
		}

		for k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}

			walkDiff(am[k], bm[k], p, ch)
		}

		return
	}

	if reflect.DeepEqual(a, b) {
		return
	}

	ch.paths = append(ch.paths, path)

	if b == nil {
		ch.gone[path] = true
	}

	if al, ok := a.([]any); ok {
		bl, _ := b.([]any)
		for _, item := range al {
			if !slices.ContainsFunc(bl, func(x any) bool { return reflect.DeepEqual(x, item) }) {
				ch.removedFromLists[path] = true

				break
			}
		}
	}
}

// under says whether path is prefix or a field below it.
func under(path, prefix string) bool {
	return path == prefix || strings.HasPrefix(path, prefix+".")
}

// needsReboot predicts whether applying the change needs a reboot on the target Talos
// release, with the reasons to show.
func needsReboot(talosVersion string, ch changes) (bool, []string) {
	rel := releaseFor(talosVersion)

	var upgrading, rebooting, applying []string

	for _, p := range ch.paths {
		f := rel.lookup(p)

		switch f.effectOf(p, ch) {
		case nextUpgrade:
			upgrading = appendUnique(upgrading, section(p)+" changed"+upgradeTakesEffect)
		case live, liveWhenOnlyAdded:
			applying = appendUnique(applying, section(p)+" changed: applied live")
		default:
			why := f.reason
			if why == "" {
				why = section(p) + " changed" + rel.rebootSuffix
			}

			rebooting = appendUnique(rebooting, why)
		}
	}

	out := slices.Concat(upgrading, rebooting, applying)
	docsReboot := false

	for _, d := range ch.docKinds {
		why, r := rel.document(d)
		out = append(out, why)
		docsReboot = docsReboot || r
	}

	needs := len(rebooting) > 0 || docsReboot
	if needs && rel.rebootNote != "" {
		out = append(out, rel.rebootNote)
	}

	return needs, out
}

// releaseFor picks the table of a Talos version; one that does not parse gets the newest.
func releaseFor(v string) release {
	for _, r := range releases {
		if r.upTo == "" {
			return r
		}

		c, err := catalog.CompareMinor(v, r.upTo)
		if err != nil {
			return releases[len(releases)-1]
		}

		if c <= 0 {
			return r
		}
	}

	return releases[len(releases)-1]
}

// lookup finds the row with the longest path covering p; a field no row names needs a
// reboot.
func (r release) lookup(p string) field {
	var best field

	for _, f := range r.fields {
		if under(p, f.path) && len(f.path) > len(best.path) {
			best = f
		}
	}

	return best
}

func (f field) effectOf(p string, ch changes) effect {
	switch {
	case f.within != "" && ch.oneSided[f.within]:
		return afterReboot
	case f.effect == liveWhenOnlyAdded && ch.removedFromLists[p]:
		return afterReboot
	default:
		return f.effect
	}
}

// document says when a changed document other than v1alpha1 takes effect, and whether
// that needs a reboot.
func (r release) document(d docChange) (string, bool) {
	if d.sameEffect {
		return d.String() + ": the same effect as before, nothing to apply", false
	}

	row := document{effect: r.otherDocuments}

	for _, doc := range r.documents {
		if slices.Contains(doc.kinds, d.kind) {
			row = doc

			break
		}
	}

	eff := row.effect

	switch {
	case eff == liveWhenOnlyAdded && d.how != "added", eff == liveUnlessChanged && d.how == "changed":
		eff = afterReboot
	case eff == liveWhenOnlyAdded, eff == liveUnlessChanged:
		eff = live
	}

	switch eff {
	case live:
		return d.String() + ": applied live", false
	case nextUpgrade:
		return d.String() + upgradeTakesEffect, false
	default:
		suffix := row.rebootSuffix
		if suffix == "" {
			suffix = ": takes effect after a reboot"
		}

		return d.String() + suffix, true
	}
}

// upgradeTakesEffect ends the reasons of changes that wait for an upgrade.
const upgradeTakesEffect = ": takes effect with the next upgrade"

// unattendedInstallKind is the document that holds the installer from Talos 1.14.
const unattendedInstallKind = "UnattendedInstallConfig"

func (d docChange) String() string {
	name := d.kind
	if d.name != "" {
		name += " " + d.name
	}

	return name + " " + d.how
}

// section shortens a changed path to the part a reviewer recognises:
// machine.sysctls.fs.inotify.max_user_watches → machine.sysctls.
func section(p string) string {
	parts := strings.Split(p, ".")

	switch {
	case len(parts) >= 3 && parts[1] == "features":
		return strings.Join(parts[:3], ".")
	case len(parts) >= 2:
		return strings.Join(parts[:2], ".")
	default:
		return p
	}
}

func appendUnique(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}

	return append(list, s)
}

// sameEffect says whether a document that came, went or changed leaves what it governs as
// the node ran it: for SecurityProfileConfig, the workload isolation (off without one).
func sameEffect(kind string, old, new coreconfig.Provider) bool {
	if kind != "SecurityProfileConfig" || old == nil || new == nil {
		return false
	}

	isolated := func(c coreconfig.Provider) bool {
		p := c.SecurityProfileConfig()

		return p != nil && p.WorkloadIsolation()
	}

	return isolated(old) == isolated(new)
}
