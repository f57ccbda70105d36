package plan

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/go-version"
	coreconfig "github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/config"
	"github.com/siderolabs/talos/pkg/machinery/config/encoder"
	"github.com/siderolabs/talos/pkg/machinery/config/types/v1alpha1"
	"go.yaml.in/yaml/v4"
)

// changes lists what differs between two configs.
type changes struct {
	// paths are the changed v1alpha1 fields (maps walked, lists compared whole).
	paths []string
	// removedFromLists holds list paths that lost an item (not only gained ones).
	removedFromLists map[string]bool
	// otherDocs counts other documents added, removed or changed.
	otherDocs int
	// docKinds are the kinds of those documents, with how they changed.
	docKinds []docChange
}

type docChange struct {
	kind, name, how string // how: added, removed, changed
}

func changedPaths(old, new coreconfig.Provider) (changes, error) {
	ch := changes{removedFromLists: map[string]bool{}}

	oldV1, oldDocs, err := split(old)
	if err != nil {
		return ch, err
	}

	newV1, newDocs, err := split(new)
	if err != nil {
		return ch, err
	}

	walkDiff(oldV1, newV1, "", &ch)
	sort.Strings(ch.paths)

	for id, o := range oldDocs {
		n, ok := newDocs[id]

		switch {
		case !ok:
			ch.docKinds = append(ch.docKinds, docChange{id.kind, id.name, "removed"})
		case !reflect.DeepEqual(o, n):
			ch.docKinds = append(ch.docKinds, docChange{id.kind, id.name, "changed"})
		}
	}

	for id := range newDocs {
		if _, ok := oldDocs[id]; !ok {
			ch.docKinds = append(ch.docKinds, docChange{id.kind, id.name, "added"})
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
func split(cfg coreconfig.Provider) (map[string]any, map[docID]any, error) {
	v1 := map[string]any{}
	others := map[docID]any{}

	if cfg == nil {
		return v1, others, nil
	}

	for _, doc := range cfg.Documents() {
		data, err := encoder.NewEncoder(doc, encoder.WithComments(encoder.CommentsDisabled)).Encode()
		if err != nil {
			return nil, nil, fmt.Errorf("encode %s document: %w", doc.Kind(), err)
		}

		var tree map[string]any
		if err := yaml.Unmarshal(data, &tree); err != nil {
			return nil, nil, fmt.Errorf("decode %s document: %w", doc.Kind(), err)
		}

		if _, ok := doc.(*v1alpha1.Config); ok {
			v1 = tree

			continue
		}

		id := docID{kind: doc.Kind()}
		if named, ok := doc.(config.NamedDocument); ok {
			id.name = named.Name()
		}

		others[id] = tree
	}

	return v1, others, nil
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
	case bok && a == nil:
		am, aok = map[string]any{}, true
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

// liveUpTo113 are the v1alpha1 fields Talos up to 1.13 applies without a reboot in AUTO mode.
var liveUpTo113 = []string{
	"debug", "cluster", "machine.ca", "machine.acceptedCAs", "machine.time", "machine.certSANs",
	"machine.install", "machine.network", "machine.sysfs", "machine.sysctls", "machine.logging",
	"machine.controlPlane", "machine.kubelet", "machine.kernel", "machine.registries", "machine.pods",
	"machine.seccompProfiles", "machine.nodeAnnotations", "machine.nodeLabels", "machine.nodeTaints",
	"machine.features.kubernetesTalosAPIAccess", "machine.features.kubePrism", "machine.features.hostDNS",
	"machine.features.imageCache", "machine.features.nodeAddressSortAlgorithm",
}

func under(path string, prefixes []string) bool {
	for _, p := range prefixes {
		if path == p || strings.HasPrefix(path, p+".") {
			return true
		}
	}

	return false
}

// needsReboot predicts whether applying the change needs a reboot on the target Talos
// release, with the reasons to show.
func needsReboot(talosVersion string, ch changes) (bool, []string) {
	if upTo113(talosVersion) {
		return rebootUpTo113(ch)
	}

	return rebootFrom114(ch)
}

func upTo113(v string) bool {
	sv, err := version.NewSemver(v)
	if err != nil {
		return false
	}

	seg := sv.Segments()

	return seg[0] < 1 || (seg[0] == 1 && seg[1] <= 13)
}

func rebootUpTo113(ch changes) (bool, []string) {
	var live, reboot []string

	var out []string

	for _, p := range ch.paths {
		switch {
		case under(p, []string{"machine.install"}):
			out = appendUnique(out, installChanged)
		case under(p, liveUpTo113):
			live = appendUnique(live, section(p))
		default:
			reboot = appendUnique(reboot, section(p))
		}
	}

	for _, r := range reboot {
		out = append(out, r+" changed: needs a reboot on Talos ≤ 1.13")
	}

	for _, l := range live {
		out = append(out, l+" changed: applied live")
	}

	for _, d := range ch.docKinds {
		out = append(out, d.String()+": applied live")
	}

	return len(reboot) > 0, out
}

func rebootFrom114(ch changes) (bool, []string) {
	var (
		out    []string
		reboot bool
	)

	for _, p := range ch.paths {
		switch {
		case under(p, []string{"cluster.etcd"}):
			reboot = true
			out = appendUnique(out, section(p)+" changed: takes effect after a reboot")
		case under(p, []string{"machine.env"}):
			reboot = true
			out = appendUnique(out, "machine.env changed: environment variables take effect after a reboot")
		case under(p, []string{"machine.kernel.modules"}) && ch.removedFromLists[p]:
			reboot = true
			out = appendUnique(out, "machine.kernel.modules lost or changed a module: takes effect after a reboot")
		case under(p, []string{"machine.systemDiskEncryption"}):
			reboot = true
			out = appendUnique(out, "machine.systemDiskEncryption changed: volume encryption takes effect after a reboot")
		case under(p, []string{"machine.install"}):
			out = appendUnique(out, installChanged)
		default:
			out = appendUnique(out, section(p)+" changed: applied live")
		}
	}

	for _, d := range ch.docKinds {
		switch {
		case d.kind == unattendedInstallKind:
			// From 1.14 the installer lives in this document; like machine.install, it
			// only matters to the next upgrade.
			out = append(out, d.String()+upgradeTakesEffect)
		case d.kind == "KernelModuleConfig" && d.how != "added", d.kind == "EnvironmentConfig":
			reboot = true
			out = append(out, d.String()+": takes effect after a reboot")
		case strings.Contains(d.kind, "VolumeConfig") && d.how == "changed":
			reboot = true
			out = append(out, d.String()+": volume changes (such as encryption keys) take effect after a reboot")
		default:
			out = append(out, d.String()+": applied live")
		}
	}

	if reboot {
		out = append(out, "Talos ≥ 1.14 never reboots on apply: talops reboots the node")
	}

	return reboot, out
}

// upgradeTakesEffect ends the reasons of changes that wait for an upgrade.
const upgradeTakesEffect = ": takes effect with the next upgrade"

// installChanged: a new installer in the config never upgrades a node by itself.
const installChanged = "machine.install changed" + upgradeTakesEffect

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
