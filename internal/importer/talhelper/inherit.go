package talhelper

import (
	"reflect"

	"github.com/siderolabs/talos/pkg/machinery/config/types/v1alpha1"
	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/schematic"
)

// machineSpecEntry is talhelper's machineSpec.
type machineSpecEntry struct {
	Mode        string `yaml:"mode"`
	Arch        string `yaml:"arch"`
	Secureboot  bool   `yaml:"secureboot"`
	UseUKI      bool   `yaml:"useUKI"`
	BootMethod  string `yaml:"bootMethod"`
	ImageSuffix string `yaml:"imageSuffix"`
}

// groupFields are talhelper's node group fields, those a controlPlane or worker section
// gives its nodes, with the Go types talhelper reads them into (built on each call: a
// table, not state).
func groupFields() map[string]reflect.Type {
	return map[string]reflect.Type{
		"nodeLabels": reflect.TypeFor[map[string]string](), "nodeAnnotations": reflect.TypeFor[map[string]string](),
		"nodeTaints": reflect.TypeFor[map[string]string](), "machineDisks": reflect.TypeFor[[]*v1alpha1.MachineDisk](),
		"machineFiles": reflect.TypeFor[[]*machineFileEntry](), "disableSearchDomain": reflect.TypeFor[bool](),
		"kernelModules": reflect.TypeFor[[]*v1alpha1.KernelModuleConfig](), "nameservers": reflect.TypeFor[[]string](), //nolint:staticcheck // talhelper's kernelModules are the v1alpha1 field
		"networkInterfaces": reflect.TypeFor[[]*v1alpha1.Device](), "extraManifests": reflect.TypeFor[[]string](),
		"certSANs": reflect.TypeFor[[]string](), "patches": reflect.TypeFor[[]string](),
		"talosImageURL": reflect.TypeFor[string](), "noSchematicValidate": reflect.TypeFor[bool](),
		"schematic": reflect.TypeFor[*schematic.Schematic](), "imageSchematic": reflect.TypeFor[*schematic.Schematic](),
		"machineSpec": reflect.TypeFor[machineSpecEntry](), "ingressFirewall": reflect.TypeFor[*firewallEntry](),
		"extensionServices": reflect.TypeFor[[]*extensionServiceEntry](), "volumes": reflect.TypeFor[[]*volumeEntry](),
		"userVolumes": reflect.TypeFor[[]*userVolumeEntry](), "filenameTmpl": reflect.TypeFor[string](),
	}
}

// zero says whether talhelper reads a node's field as its type's zero value, which it fills
// from the node's group: absent, null, false, "", an empty machineSpec; an empty list or
// mapping is not zero. A value its type cannot hold counts as set (it is reported where it
// is read).
func zero(n *yaml.Node, key string) bool {
	n = deref(n)
	if n == nil {
		return true
	}

	t, ok := groupFields()[key]
	if !ok {
		return false
	}

	if t.Kind() == reflect.Bool {
		return !boolean(n)
	}

	v := reflect.New(t)
	if err := n.Decode(v.Interface()); err != nil {
		return false
	}

	return v.Elem().IsZero()
}

// effective is the node with its group's fields where the node's own are zero, as
// talhelper merges them (patches, certSANs and extraManifests, which it appends, are handled
// on their own; a group's key that is no group field is ignored, as talhelper ignores it).
func effective(n, role *yaml.Node) *yaml.Node {
	fields := groupFields()
	taken := map[string]bool{}

	var fromRole []*yaml.Node

	for _, p := range pairs(role) {
		if _, ok := fields[p.key]; !ok || p.key == "patches" || p.key == "certSANs" || p.key == "extraManifests" {
			continue
		}

		if !zero(get(n, p.key), p.key) {
			continue
		}

		taken[p.key] = true
		fromRole = append(fromRole, &yaml.Node{Kind: yaml.ScalarNode, Value: p.key, Line: p.line}, p.value)
	}

	out := &yaml.Node{Kind: yaml.MappingNode, Line: n.Line}

	own := deref(n)
	for i := 0; i+1 < len(own.Content); i += 2 {
		if !taken[own.Content[i].Value] {
			out.Content = append(out.Content, own.Content[i], own.Content[i+1])
		}
	}

	out.Content = append(out.Content, fromRole...)

	return out
}

// groupKeys reports a controlPlane or worker key that is no node group field: talhelper
// reads the sections as node groups and ignores it.
func (im *mapping) groupKeys(root *yaml.Node) {
	fields := groupFields()

	for _, section := range []string{"controlPlane", "worker"} {
		for _, p := range pairs(get(root, section)) {
			if _, ok := fields[p.key]; !ok {
				im.repo.Unsupported(p.line, "", section+"."+p.key, "not a node group field: talhelper ignores it here (set it on the nodes): not imported")
			}
		}
	}
}
