package migrate

import (
	"fmt"
	"strings"

	"github.com/siderolabs/talos/pkg/machinery/config/types/k8s"
	"go.yaml.in/yaml/v4"
)

// component is a v1alpha1 cluster section whose document has a field for each of its keys
// (machinery v1.14.1, pkg/machinery/config/types/k8s): fields maps a v1alpha1 key to the
// document's. `disabled` becomes the document's `enabled`, negated.
type component struct {
	path, kind string
	fields     map[string]string
}

var components = []component{
	{"cluster.coreDNS", k8s.KubeCoreDNSConfig, map[string]string{"image": "image", "disabled": "enabled"}},
	{"cluster.proxy", k8s.KubeProxyConfig, map[string]string{"image": "image", "disabled": "enabled", "mode": "mode", "extraArgs": "extraArgs"}},
	{"cluster.controllerManager", k8s.KubeControllerManagerConfig, map[string]string{"image": "image", "extraArgs": "extraArgs", "env": "env", "resources": "resources"}},
	{"cluster.scheduler", k8s.KubeSchedulerConfig, map[string]string{"image": "image", "extraArgs": "extraArgs", "env": "env", "resources": "resources", "config": "config"}},
}

// components moves each component section whole into its document, or leaves it whole:
// any of it left in v1alpha1 conflicts with the document every control plane of the new
// contract has. Those documents are for control planes only, so a file a worker uses too
// keeps the section, named.
func (f *file) components() {
	for _, c := range components {
		_, v := at(f.body(), c.path)
		if v == nil {
			continue
		}

		if why := f.unmovable(c, v); why != "" {
			f.left(c.path, why)

			continue
		}

		k, v, comment := f.take(c.path)
		doc := f.doc(c.kind, "")

		for i := 0; i+1 < len(v.Content); i += 2 {
			key, val := v.Content[i], v.Content[i+1]
			if key.Value == "disabled" {
				val = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(val.Value != "true")}
			}

			set(doc, c.fields[key.Value], val).HeadComment = key.HeadComment
		}

		f.moved(k.Line, c.path, c.kind, doc, comment)
	}
}

// unmovable says why the section v of component c cannot move ("" when it can).
func (f *file) unmovable(c component, v *yaml.Node) string {
	if v.Kind != yaml.MappingNode {
		return "not a mapping"
	}

	if f.patch.Workers > 0 {
		return fmt.Sprintf("%s is a document for control planes only and a worker uses this file: move the section to a patch only control planes use, then migrate", c.kind)
	}

	var extra []string

	for _, key := range keys(v) {
		if _, ok := c.fields[key]; !ok {
			extra = append(extra, key)
		}
	}

	if len(extra) > 0 {
		return fmt.Sprintf("%s has no field in %s: the whole section stays, and the new layout refuses it until it moves by hand", strings.Join(extra, ", "), c.kind)
	}

	if _, d := get(v, "disabled"); d != nil && (d.Kind != yaml.ScalarNode || d.Value != "true" && d.Value != "false") {
		return "disabled is not true or false"
	}

	return ""
}
