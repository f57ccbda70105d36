package migrate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/siderolabs/talos/pkg/machinery/config/types/k8s"
	"github.com/siderolabs/talos/pkg/machinery/config/types/network"
	"github.com/siderolabs/talos/pkg/machinery/config/types/runtime"
	"go.yaml.in/yaml/v4"
)

// Control-plane facts a v1alpha1 control plane got without asking.
const (
	labelControlPlane = "node-role.kubernetes.io/control-plane"
	taintNoSchedule   = "NoSchedule"
)

// moveAll moves every field this migration knows, in the order of the documents it makes.
func (f *file) moveAll() {
	f.install()
	f.kubelet()
	f.nodeLabels()
	f.apiServer()
	f.hostname()
	f.resolvers()
	f.hostDNS()
	f.components()
	f.discovery()
	f.allowScheduling()
	f.network()
	f.leftInPlace()
}

// install: machine.install → UnattendedInstallConfig, for the disk, image and wipe.
func (f *file) install() {
	_, v := at(f.body(), "machine.install")
	if v == nil {
		return
	}

	if !f.kernelArgsInSchematic(v) {
		return
	}

	if extra := unknownKeys(v, "disk", "diskSelector", "image", "wipe"); len(extra) > 0 || v.Kind != yaml.MappingNode {
		f.left("machine.install", fmt.Sprintf("%s has no place in UnattendedInstallConfig this migration writes: move it by hand", strings.Join(extra, ", ")))

		return
	}

	if len(v.Content) == 0 {
		// Only kernel arguments the schematic carries were there.
		f.take("machine.install")

		return
	}

	// A patch that deletes the disk and sets a selector (an RFC 6902 patch of a talhelper
	// import's, as a strategic merge) chooses the disk by the selector: in the document the
	// selector's match replaces the disk's.
	if _, disk := get(v, "disk"); isDeletion(disk) {
		if _, sel := get(v, "diskSelector"); sel == nil {
			f.left("machine.install.disk", "it deletes the install disk without a disk selector to take its place: a node of the new layout needs one of them")

			return
		}

		del(v, "disk")
	}

	match, err := diskSelectorMatch(v)
	if err != nil {
		f.left("machine.install", "its diskSelector: "+err.Error())

		return
	}

	k, v, comment := f.take("machine.install")
	doc := f.doc(runtime.UnattendedInstallConfigKind, "")

	if match != "" {
		set(child(child(doc, "provisioning"), "diskSelector"), "match", str(match))
	}

	if _, img := get(v, "image"); img != nil {
		set(child(doc, "installer"), "image", img)
	}

	// Beside a selector the disk is not used: Talos installs to the disk the selector matches.
	if _, disk := get(v, "disk"); disk != nil && match == "" {
		set(child(child(doc, "provisioning"), "diskSelector"), "match", str(fmt.Sprintf("disk.dev_path == %q", disk.Value)))
	}

	// v1alpha1 wipes the disk only when told to (the generator writes wipe: false); the
	// document's default is to wipe.
	if _, wipe := get(v, "wipe"); wipe != nil {
		set(child(doc, "provisioning"), "wipe", wipe)
	} else if _, disk := get(v, "disk"); disk != nil || match != "" {
		set(child(doc, "provisioning"), "wipe", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "false"})
	}

	f.moved(k.Line, "machine.install", runtime.UnattendedInstallConfigKind, doc, comment)
}

// kernelArgsInSchematic drops machine.install.extraKernelArgs when the schematic of every
// node that uses the file carries each of them: from 1.14 the schematic is their one place
// (its installer writes them), and no document has them. false, with the reason left, when
// one is not there: adding it to a schematic is a new installer image, a change of its own.
func (f *file) kernelArgsInSchematic(install *yaml.Node) bool {
	const path = "machine.install.extraKernelArgs"

	k, v := get(install, "extraKernelArgs")
	if v == nil {
		return true
	}

	var missing []string

	for _, a := range v.Content {
		if a.Kind != yaml.ScalarNode || !slices.Contains(f.patch.SchematicKernelArgs, a.Value) {
			missing = append(missing, a.Value)
		}
	}

	if v.Kind != yaml.SequenceNode || len(missing) > 0 {
		f.left("machine.install", fmt.Sprintf("extraKernelArgs has no document from 1.14: the node boots with its schematic's kernel arguments, and the schematic of every node that uses this file does not carry %s; "+
			"add them to its customization.extraKernelArgs (a new installer image: an upgrade, as a change of its own), then migrate", strings.Join(missing, " ")))

		return false
	}

	del(install, "extraKernelArgs")
	f.changed = true
	f.res.Moved = append(f.res.Moved, Move{File: f.patch.Path, Line: k.Line, From: path, To: "the schematic's extraKernelArgs (there already)"})

	return true
}

// kubelet: machine.kubelet → KubeletConfig, with nodeIP, registerWithFQDN and
// skipNodeRegistration → KubeNodeConfig. All or nothing: any v1alpha1 kubelet left
// conflicts with the KubeletConfig every node of the new contract has.
func (f *file) kubelet() {
	_, v := at(f.body(), "machine.kubelet")
	if v == nil {
		return
	}

	toKubelet := map[string]string{"image": "image", "extraArgs": "extraArgs", "clusterDNS": "clusterDNS", "extraConfig": "config", "defaultRuntimeSeccompProfileEnabled": "defaultRuntimeSeccompProfileEnabled"}
	toNode := map[string]string{"nodeIP": "nodeIP", "registerWithFQDN": "registerWithFQDN", "skipNodeRegistration": "skipNodeRegistration"}

	var extra []string

	for _, key := range keys(v) {
		if _, ok := toKubelet[key]; !ok {
			if _, ok := toNode[key]; !ok {
				extra = append(extra, key)
			}
		}
	}

	if slices.Contains(extra, "extraMounts") {
		f.left("machine.kubelet", "extraMounts has no place in the 1.14 documents (KubeletConfig has no mounts, and a v1alpha1 kubelet beside the KubeletConfig the contract generates is refused): "+
			"a volume Talos mounts under /var/mnt reaches the kubelet by itself; move any other path there (a UserVolumeConfig), remove the mounts, then migrate")

		return
	}

	if len(extra) > 0 {
		f.left("machine.kubelet", fmt.Sprintf("%s has no field in KubeletConfig: the whole kubelet section stays, and the new layout refuses it until it moves by hand", strings.Join(extra, ", ")))

		return
	}

	k, v, comment := f.take("machine.kubelet")

	var kubelet, node *yaml.Node

	for i := 0; i+1 < len(v.Content); i += 2 {
		key, val := v.Content[i], v.Content[i+1]

		if to, ok := toKubelet[key.Value]; ok {
			if kubelet == nil {
				kubelet = f.doc(k8s.KubeletConfig, "")
			}

			set(kubelet, to, val).HeadComment = key.HeadComment
			f.moved(key.Line, "machine.kubelet."+key.Value, k8s.KubeletConfig, kubelet, comment)
		} else {
			if node == nil {
				node = f.nodeDoc()
			}

			set(node, toNode[key.Value], val).HeadComment = key.HeadComment
			f.moved(key.Line, "machine.kubelet."+key.Value, k8s.KubeNodeConfig, node, comment)
		}

		comment = ""
	}

	if kubelet == nil && node == nil {
		f.moved(k.Line, "machine.kubelet", k8s.KubeletConfig, f.doc(k8s.KubeletConfig, ""), comment)
	}
}

// nodeDoc is the file's KubeNodeConfig; made on a file only control planes use, it names
// the control-plane label and taint that v1alpha1 set by itself.
func (f *file) nodeDoc() *yaml.Node {
	fresh := true

	for _, d := range f.docs {
		if _, kind := get(d.Content[0], "kind"); kind != nil && kind.Value == k8s.KubeNodeConfig {
			fresh = false
		}
	}

	doc := f.doc(k8s.KubeNodeConfig, "")
	if fresh && f.patch.controlPlaneOnly() {
		set(child(doc, "labels"), labelControlPlane, quoted(""))
		if !f.scheduling {
			set(child(doc, "taints"), labelControlPlane, str(taintNoSchedule))
		}
	}

	return doc
}

// nodeLabels: machine.nodeLabels, nodeAnnotations, nodeTaints → KubeNodeConfig.
func (f *file) nodeLabels() {
	for _, m := range []struct{ from, to string }{{"nodeLabels", "labels"}, {"nodeAnnotations", "annotations"}, {"nodeTaints", "taints"}} {
		_, v := at(f.body(), "machine."+m.from)
		if v == nil {
			continue
		}

		if v.Kind != yaml.MappingNode {
			f.left("machine."+m.from, "not a mapping")

			continue
		}

		k, v, comment := f.take("machine." + m.from)
		doc := f.nodeDoc()
		into := child(doc, m.to)

		for i := 0; i+1 < len(v.Content); i += 2 {
			set(into, v.Content[i].Value, v.Content[i+1]).HeadComment = v.Content[i].HeadComment
		}

		f.moved(k.Line, "machine."+m.from, k8s.KubeNodeConfig, doc, comment)
	}
}

// hostname: machine.network.hostname → HostnameConfig (auto off: the name is explicit).
func (f *file) hostname() {
	_, v := at(f.body(), "machine.network.hostname")
	if v == nil {
		return
	}

	k, v, comment := f.take("machine.network.hostname")
	doc := f.doc(network.HostnameKind, "")

	if _, auto := get(doc, "auto"); auto == nil {
		set(doc, "auto", quoted("off"))
	}

	set(doc, "hostname", v)
	f.moved(k.Line, "machine.network.hostname", network.HostnameKind, doc, comment)
}

// resolvers: machine.network.nameservers, searchDomains, disableSearchDomain → ResolverConfig.
// An empty search list is never written: in ResolverConfig it would clear the search
// domains DHCP gives, which the empty v1alpha1 list never did.
func (f *file) resolvers() {
	if _, v := at(f.body(), "machine.network.nameservers"); v != nil {
		k, v, comment := f.take("machine.network.nameservers")
		doc := f.doc(network.ResolverKind, "")
		list := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}

		for _, item := range v.Content {
			entry := mapping()
			set(entry, "address", item)
			list.Content = append(list.Content, entry)
		}

		set(doc, "nameservers", list)
		f.moved(k.Line, "machine.network.nameservers", network.ResolverKind, doc, comment)
	}

	if _, v := at(f.body(), "machine.network.searchDomains"); v != nil {
		k, v, comment := f.take("machine.network.searchDomains")
		if len(v.Content) > 0 {
			doc := f.doc(network.ResolverKind, "")
			set(child(doc, "searchDomains"), "domains", v)
			f.moved(k.Line, "machine.network.searchDomains", network.ResolverKind, doc, comment)
		} else {
			f.res.Moved = append(f.res.Moved, Move{File: f.patch.Path, Line: k.Line, From: "machine.network.searchDomains", To: "(dropped: an empty list adds nothing)"})
		}
	}

	if _, v := at(f.body(), "machine.network.disableSearchDomain"); v != nil {
		k, v, comment := f.take("machine.network.disableSearchDomain")
		doc := f.doc(network.ResolverKind, "")
		set(child(doc, "searchDomains"), "disableDefault", v)
		f.moved(k.Line, "machine.network.disableSearchDomain", network.ResolverKind, doc, comment)
	}
}

// hostDNS: machine.features.hostDNS → ResolverConfig.hostDNS (the same three keys).
func (f *file) hostDNS() {
	_, v := at(f.body(), "machine.features.hostDNS")
	if v == nil {
		return
	}

	if extra := unknownKeys(v, "enabled", "forwardKubeDNSToHost", "resolveMemberNames"); len(extra) > 0 {
		f.left("machine.features.hostDNS", strings.Join(extra, ", ")+" has no field in ResolverConfig.hostDNS")

		return
	}

	k, v, comment := f.take("machine.features.hostDNS")
	doc := f.doc(network.ResolverKind, "")
	set(doc, "hostDNS", v)
	f.moved(k.Line, "machine.features.hostDNS", network.ResolverKind, doc, comment)
}

// notMoved are v1alpha1 fields with a document in the new contract that this migration
// does not write: each stays where it is and is named.
var notMoved = []struct{ path, doc, why string }{
	{"cluster.inlineManifests", "KubeInlineManifestConfig", "still valid in the v1alpha1 document"},
	{"cluster.extraManifests", "KubeExternalManifestConfig", "still valid in the v1alpha1 document"},
	{"machine.sysctls", "SysctlConfig", "still valid in the v1alpha1 document"},
	{"machine.kernel.modules", "KernelModuleConfig", "still valid in the v1alpha1 document"},
	{"machine.time", "TimeSyncConfig", "still valid in the v1alpha1 document"},
	{"machine.registries", "RegistryMirrorConfig", "still valid in the v1alpha1 document"},
}

// leftInPlace names the fields of notMoved the file still has.
func (f *file) leftInPlace() {
	for _, n := range notMoved {
		if _, v := at(f.body(), n.path); v != nil {
			f.left(n.path, "its document is "+n.doc+", which this migration does not write: "+n.why)
		}
	}
}

// schedulesOnControlPlanes says whether a patch lets workloads run on control planes: the
// v1alpha1 allowSchedulingOnControlPlanes, or a KubeNodeConfig deleting their taint.
func schedulesOnControlPlanes(patches []Patch) bool {
	for _, p := range patches {
		docs, err := parseDocs(p.Data)
		if err != nil {
			continue
		}

		for _, d := range docs {
			if len(d.Content) != 1 || d.Content[0].Kind != yaml.MappingNode {
				continue
			}

			body := d.Content[0]
			if _, v := at(body, "cluster.allowSchedulingOnControlPlanes"); v != nil && v.Value == "true" {
				return true
			}

			if _, kind := get(body, "kind"); kind == nil || kind.Value != k8s.KubeNodeConfig {
				continue
			}

			_, taints := get(body, "taints")
			if _, taint := get(taints, labelControlPlane); taint != nil {
				if _, op := get(taint, "$patch"); op != nil && op.Value == "delete" {
					return true
				}
			}
		}
	}

	return false
}

// allowScheduling: cluster.allowSchedulingOnControlPlanes → the control planes' KubeNodeConfig
// without its NoSchedule taint (the generator writes it there). Only from a patch no
// worker uses: deleting a taint a worker's document does not have fails the patch. From a
// patch every control plane uses, the taint is deleted in the patch every control plane
// uses first (deleteControlPlaneTaint): v1alpha1 never added the taint, so a taint a
// later patch sets for the control-plane role must stay, which a delete after it would
// take back.
func (f *file) allowScheduling() {
	const path = "cluster.allowSchedulingOnControlPlanes"

	_, v := at(f.body(), path)
	if v == nil {
		return
	}

	if f.patch.Workers > 0 {
		f.left(path, "the control planes' KubeNodeConfig taint replaces it, and a worker uses this file: move it to a patch only control planes use, then migrate")

		return
	}

	k, v, comment := f.take(path)

	if v.Value == "true" && f.everyControlPlane {
		f.res.controlPlaneSchedules = true
		f.res.Moved = append(f.res.Moved, Move{File: f.patch.Path, Line: k.Line, From: path, To: k8s.KubeNodeConfig + " of the patch every control plane uses first"})

		// A patch must keep a document: one left with nothing keeps the control
		// planes' KubeNodeConfig, which changes nothing.
		if body := f.body(); len(f.docs) == 1 && (len(body.Content) == 0 || onlyVersion(body)) {
			doc := f.nodeDoc()
			doc.Content[0].HeadComment = joinComments(doc.Content[0].HeadComment, comment)
		}

		return
	}

	doc := f.nodeDoc()

	if v.Value == "true" {
		drop := mapping()
		set(drop, "$patch", str("delete"))
		set(child(doc, "taints"), labelControlPlane, drop)
	}

	f.moved(k.Line, path, k8s.KubeNodeConfig, doc, comment)
}

// deleteControlPlaneTaint deletes the control planes' NoSchedule taint in the file's
// KubeNodeConfig.
func (f *file) deleteControlPlaneTaint() {
	f.scheduling = true
	doc := f.nodeDoc()
	drop := mapping()
	set(drop, "$patch", str("delete"))
	set(child(doc, "taints"), labelControlPlane, drop)
	f.changed = true
}
