package talhelper

import (
	"reflect"
	"strings"

	"github.com/siderolabs/talos/pkg/machinery/config/types/v1alpha1"
	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/finding"
)

// nodeOps are the node's talhelper fields as RFC 6902 operations. talhelper sets these
// fields on the generated config, replacing what the generator wrote (the control
// planes' default labels, for one), which `add` does and a strategic merge would not.
func (im *mapping) nodeOps(n *yaml.Node, name string, field func(string) string, sans []string, ownInstaller bool) []op {
	o := &nodeFields{im: im, n: n, name: name, field: field}

	if !im.contract.MultidocNetworkConfigSupported() {
		o.legacyNetwork()
	}

	o.typed("/machine/install/diskSelector", "installDiskSelector", reflect.TypeFor[*v1alpha1.InstallDiskSelector]())

	if len(items(get(n, "machineDisks"))) > 0 {
		o.typed("/machine/disks", "machineDisks", reflect.TypeFor[[]*v1alpha1.MachineDisk]())
	}

	o.kernelModules()
	o.labels("nodeAnnotations", "/machine/nodeAnnotations")
	o.labels("nodeLabels", "/machine/nodeLabels")
	o.typed("/machine/nodeTaints", "nodeTaints", reflect.TypeFor[map[string]string]())

	if files, ok := im.machineFiles(n, name, field); ok && len(files) > 0 {
		o.add("/machine/files", files)
	}

	if args := strs(get(get(get(n, "schematic"), "customization"), "extraKernelArgs")); len(args) > 0 &&
		!boolean(get(get(n, "machineSpec"), "useUKI")) && !im.contract.GrubUseUKICmdlineDefault() {
		o.add("/machine/install/extraKernelArgs", args)
	}

	for _, san := range sans {
		o.add("/machine/certSANs/-", san)
	}

	o.installer(ownInstaller)

	return o.ops
}

// nodeFields gathers the operations of one node's talhelper fields.
type nodeFields struct {
	im    *mapping
	n     *yaml.Node
	name  string
	field func(string) string
	ops   []op
}

func (o *nodeFields) add(path string, value any) {
	o.ops = append(o.ops, op{Op: "add", Path: path, Value: value})
}

// set adds the node's key as it is written.
func (o *nodeFields) set(path, key string) {
	v := get(o.n, key)
	if v == nil {
		return
	}

	val, err := plain(v)
	if err != nil {
		o.im.repo.Unsupported(v.Line, o.name, o.field(key), "not readable; not imported")

		return
	}

	o.add(path, val)
}

// typed adds a field talhelper reads into a Talos type, which drops the keys it does not know.
func (o *nodeFields) typed(path, key string, t reflect.Type) {
	if v := get(o.n, key); v != nil {
		if val, ok := o.im.typed(v, o.name, o.field(key), t); ok {
			o.add(path, val)
		}
	}
}

// legacyNetwork: the network fields talhelper sets in v1alpha1 before the 1.12 contract.
func (o *nodeFields) legacyNetwork() {
	if ifaces, ok := o.im.legacyInterfaces(o.n, o.name, o.field); ok {
		o.add("/machine/network/interfaces", ifaces)
	}

	o.set("/machine/network/nameservers", "nameservers")
	// talhelper sets it only when true.
	if boolean(get(o.n, "disableSearchDomain")) {
		o.add("/machine/network/disableSearchDomain", true)
	}

	if !boolean(get(o.n, "ignoreHostname")) {
		o.add("/machine/network/hostname", o.name)
	}
}

// kernelModules: talhelper's kernelModules are the v1alpha1 field.
func (o *nodeFields) kernelModules() {
	v := get(o.n, "kernelModules")
	if len(items(v)) == 0 {
		return
	}

	if mods, ok := o.im.typed(v, o.name, o.field("kernelModules"), reflect.TypeFor[[]*v1alpha1.KernelModuleConfig]()); ok { //nolint:staticcheck // talhelper's kernelModules are the v1alpha1 field
		o.add("/machine/kernel", map[string]any{"modules": mods})
	}
}

// labels adds the node's labels or annotations; a templated value is rendered once the
// node's config is known (renderTemplates).
func (o *nodeFields) labels(key, path string) {
	v := get(o.n, key)
	if v == nil {
		return
	}

	// talhelper reads them as a map of strings, and fails on anything else.
	if _, ok := o.im.typed(v, o.name, o.field(key), reflect.TypeFor[map[string]string]()); !ok {
		return
	}

	m := map[string]string{}

	var tmpl []templated

	for _, p := range pairs(v) {
		if strings.Contains(scalar(p.value), "{{") || strings.Contains(scalar(p.value), "}}") {
			tmpl = append(tmpl, templated{
				node: o.name, path: path, key: p.key, text: scalar(p.value), line: p.line, field: o.field(key + "." + p.key),
			})

			continue
		}

		m[p.key] = scalar(p.value)
	}

	for i := range tmpl {
		tmpl[i].plain = m
	}

	o.im.templates = append(o.im.templates, tmpl...)
	o.add(path, m)
}

// installer: an installer talops cannot name stays as talhelper writes it
// (imageURLSchematic), so the render is talhelper's; one it names follows talosVersion.
func (o *nodeFields) installer(ownInstaller bool) {
	url := scalar(get(o.n, "talosImageURL"))
	if url == "" {
		return
	}

	if !ownInstaller {
		o.add("/machine/install/image", url+":"+o.im.talosVersion)
	}

	if get(o.n, "schematic") != nil {
		o.im.repo.Mapped(finding.Info, lineOf(o.n, "schematic"), o.name, o.field("schematic"), "talosImageURL wins over it, as in talhelper: the schematic is not imported")
	}
}

// nodeDocs are the documents talhelper adds to a node on the 1.12 contract and later: its
// hostname (or the stable default when it ignores it), then its network documents.
func (im *mapping) nodeDocs(n *yaml.Node, name string, field func(string) string) []any {
	if !im.contract.MultidocNetworkConfigSupported() {
		docs := append(im.firewallDocs(n, name, field), im.extensionServices(n, name, field)...)

		return append(docs, im.volumeDocs(n, name, field)...)
	}

	hostname := map[string]any{"apiVersion": "v1alpha1", "kind": "HostnameConfig", "hostname": name, "auto": "off"}
	if boolean(get(n, "ignoreHostname")) {
		hostname = map[string]any{"apiVersion": "v1alpha1", "kind": "HostnameConfig", "auto": "stable"}
	}

	docs := []any{hostname}

	// talhelper writes a ResolverConfig for nameservers or disableSearchDomain, and then
	// always says whether the default search domain is disabled.
	ns, disable := strs(get(n, "nameservers")), boolean(get(n, "disableSearchDomain"))
	if len(ns) > 0 || disable {
		servers := make([]any, 0, len(ns))
		for _, a := range ns {
			servers = append(servers, map[string]any{"address": a})
		}

		docs = append([]any{map[string]any{
			"apiVersion": "v1alpha1", "kind": "ResolverConfig", "nameservers": servers,
			"searchDomains": map[string]any{"disableDefault": disable},
		}}, docs...)
	}

	docs = append(docs, im.firewallDocs(n, name, field)...)
	docs = append(docs, im.extensionServices(n, name, field)...)
	docs = append(docs, im.volumeDocs(n, name, field)...)

	return append(docs, im.networkDocs(n, name, field)...)
}
