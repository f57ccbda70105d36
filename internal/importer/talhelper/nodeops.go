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
	var ops []op

	multidoc := im.contract.MultidocNetworkConfigSupported()

	set := func(path string, key string) {
		v := get(n, key)
		if v == nil {
			return
		}

		val, err := plain(v)
		if err != nil {
			im.repo.Unsupported(v.Line, name, field(key), "not readable; not imported")

			return
		}

		ops = append(ops, op{Op: "add", Path: path, Value: val})
	}

	if !multidoc {
		if ifaces, ok := im.legacyInterfaces(n, name, field); ok {
			ops = append(ops, op{Op: "add", Path: "/machine/network/interfaces", Value: ifaces})
		}

		set("/machine/network/nameservers", "nameservers")
		// talhelper sets it only when true.
		if boolean(get(n, "disableSearchDomain")) {
			ops = append(ops, op{Op: "add", Path: "/machine/network/disableSearchDomain", Value: true})
		}

		if !boolean(get(n, "ignoreHostname")) {
			ops = append(ops, op{Op: "add", Path: "/machine/network/hostname", Value: name})
		}
	}

	// The fields talhelper reads into Talos types, which drop the keys they do not know.
	typedSet := func(path, key string, t reflect.Type) {
		if v := get(n, key); v != nil {
			if val, ok := im.typed(v, name, field(key), t); ok {
				ops = append(ops, op{Op: "add", Path: path, Value: val})
			}
		}
	}

	typedSet("/machine/install/diskSelector", "installDiskSelector", reflect.TypeFor[*v1alpha1.InstallDiskSelector]())

	if len(items(get(n, "machineDisks"))) > 0 {
		typedSet("/machine/disks", "machineDisks", reflect.TypeFor[[]*v1alpha1.MachineDisk]())
	}

	if v := get(n, "kernelModules"); len(items(v)) > 0 {
		if mods, ok := im.typed(v, name, field("kernelModules"), reflect.TypeFor[[]*v1alpha1.KernelModuleConfig]()); ok { //nolint:staticcheck // talhelper's kernelModules are the v1alpha1 field
			ops = append(ops, op{Op: "add", Path: "/machine/kernel", Value: map[string]any{"modules": mods}})
		}
	}

	for _, k := range []struct{ key, path string }{
		{"nodeAnnotations", "/machine/nodeAnnotations"}, {"nodeLabels", "/machine/nodeLabels"},
	} {
		v := get(n, k.key)
		if v == nil {
			continue
		}

		// talhelper reads them as a map of strings, and fails on anything else.
		if _, ok := im.typed(v, name, field(k.key), reflect.TypeFor[map[string]string]()); !ok {
			continue
		}

		m := map[string]string{}

		for _, p := range pairs(v) {
			if strings.Contains(scalar(p.value), "{{") || strings.Contains(scalar(p.value), "}}") {
				// Rendered once the node's config is known (renderTemplates).
				im.templates = append(im.templates, templated{
					node: name, path: k.path + "/" + pointerEscape(p.key), text: scalar(p.value), line: p.line, field: field(k.key + "." + p.key),
				})

				continue
			}

			m[p.key] = scalar(p.value)
		}

		ops = append(ops, op{Op: "add", Path: k.path, Value: m})
	}

	typedSet("/machine/nodeTaints", "nodeTaints", reflect.TypeFor[map[string]string]())

	if files, ok := im.machineFiles(n, name, field); ok && len(files) > 0 {
		ops = append(ops, op{Op: "add", Path: "/machine/files", Value: files})
	}

	if args := strs(get(get(get(n, "schematic"), "customization"), "extraKernelArgs")); len(args) > 0 &&
		!boolean(get(get(n, "machineSpec"), "useUKI")) && !im.contract.GrubUseUKICmdlineDefault() {
		ops = append(ops, op{Op: "add", Path: "/machine/install/extraKernelArgs", Value: args})
	}

	for _, san := range sans {
		ops = append(ops, op{Op: "add", Path: "/machine/certSANs/-", Value: san})
	}

	if url := scalar(get(n, "talosImageURL")); url != "" {
		// An installer talops cannot name stays as talhelper writes it (imageURLSchematic), so
		// the render is talhelper's; one it names follows talosVersion from talops.yaml.
		if !ownInstaller {
			ops = append(ops, op{Op: "add", Path: "/machine/install/image", Value: url + ":" + im.talosVersion})
		}

		if get(n, "schematic") != nil {
			im.repo.Mapped(finding.Info, lineOf(n, "schematic"), name, field("schematic"), "talosImageURL wins over it, as in talhelper: the schematic is not imported")
		}
	}

	return ops
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
