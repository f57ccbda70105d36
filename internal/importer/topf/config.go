package topf

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/importer"
)

// config is topf.yaml as the import reads it, with the line of every key it maps.
type config struct {
	ClusterName, ClusterEndpoint, KubernetesVersion, TalosVersion string
	SchematicID, Factory, Platform, PatchesDir, SecretsPath       string
	SecureBoot                                                    bool
	Data                                                          map[string]any
	Nodes                                                         []node
	lines                                                         map[string]int
}

// node is one entry of nodes.
type node struct {
	Host, IP, Role                               string
	TalosVersion, SchematicID, Factory, Platform string
	SecureBoot                                   bool
	Data                                         map[string]any
	line                                         int
	lines                                        map[string]int
}

// topKeys and nodeKeys are the keys topf knows; other keys topf ignores, and so does the
// import, saying so.
var (
	topKeys = []string{
		"clusterName", "clusterEndpoint", "kubernetesVersion", "talosVersion", "schematicId", "factory",
		"platform", "secureboot", "patchesDir", "secretsPath", "secretsProvider", "nodesProvider", "data", "nodes",
		"configDir",
	}
	nodeKeys = []string{"host", "ip", "role", "data", "talosVersion", "schematicId", "factory", "platform", "secureboot"}
)

// parse reads topf.yaml; an error is a file topf refuses as well.
func (im *mapping) parse() (*config, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(im.in.Data, &doc); err != nil {
		return nil, &cluster.InputError{File: im.in.File, Msg: "not YAML: " + importer.OneLine(err)}
	}

	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, &cluster.InputError{File: im.in.File, Line: 1, Msg: "topf.yaml is a mapping"}
	}

	root := doc.Content[0]
	c := &config{lines: map[string]int{}}

	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		c.lines[k.Value] = k.Line

		var err error

		switch k.Value {
		case "clusterName":
			c.ClusterName = v.Value
		case "clusterEndpoint":
			c.ClusterEndpoint = v.Value
		case "kubernetesVersion":
			c.KubernetesVersion = v.Value
		case "talosVersion":
			c.TalosVersion = v.Value
		case "schematicId":
			c.SchematicID = v.Value
		case "factory":
			c.Factory = v.Value
		case "platform":
			c.Platform = v.Value
		case "patchesDir":
			c.PatchesDir = v.Value
		case "secretsPath":
			c.SecretsPath = v.Value
		case "secureboot":
			c.SecureBoot, err = boolOf(v)
		case "data":
			err = v.Decode(&c.Data)
		case "nodes":
			if c.Nodes, err = im.nodes(v); err != nil {
				var ie *cluster.InputError
				if errors.As(err, &ie) {
					return nil, err
				}
			}
		case "configDir":
			return nil, &cluster.InputError{File: im.in.File, Line: k.Line, Field: k.Value, Msg: "deprecated: topf refuses it (use patchesDir)"}
		case "secretsProvider", "nodesProvider":
			im.repo.Unsupported(k.Line, "", k.Value, "talops runs no provider binaries; not imported (the import reads secretsPath and the nodes listed here)")
		default:
			im.repo.Unsupported(k.Line, "", k.Value, "unknown to topf and talops; not imported")
		}

		if err != nil {
			return nil, &cluster.InputError{File: im.in.File, Line: v.Line, Field: k.Value, Msg: importer.OneLine(err)}
		}
	}

	return c, nil
}

func (im *mapping) nodes(seq *yaml.Node) ([]node, error) {
	if seq.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("a list of nodes")
	}

	out := make([]node, 0, len(seq.Content))

	for i, m := range seq.Content {
		if m.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("nodes[%d] is not a mapping", i)
		}

		n := node{line: m.Line, lines: map[string]int{}}

		for j := 0; j+1 < len(m.Content); j += 2 {
			k, v := m.Content[j], m.Content[j+1]
			n.lines[k.Value] = k.Line

			var err error

			switch k.Value {
			case "host":
				n.Host = v.Value
			case "ip":
				n.IP = v.Value
			case "role":
				n.Role = v.Value
			case "talosVersion":
				n.TalosVersion = v.Value
			case "schematicId":
				n.SchematicID = v.Value
			case "factory":
				n.Factory = v.Value
			case "platform":
				n.Platform = v.Value
			case "secureboot":
				n.SecureBoot, err = boolOf(v)
			case "data":
				err = v.Decode(&n.Data)
			}

			if !slices.Contains(nodeKeys, k.Value) {
				im.repo.Unsupported(k.Line, "", "nodes["+strconv.Itoa(i)+"]."+k.Value, "unknown to topf and talops; not imported")
			}

			if err != nil {
				return nil, fmt.Errorf("nodes[%d].%s: %w", i, k.Value, err)
			}
		}

		if n.Host == "" {
			return nil, &cluster.InputError{File: im.in.File, Line: m.Line, Field: "nodes[" + strconv.Itoa(i) + "].host", Msg: "required"}
		}

		if n.Role != roleControlPlane && n.Role != roleWorker {
			return nil, &cluster.InputError{
				File: im.in.File, Line: lineOr(n.lines, "role", m.Line), Field: "nodes[" + strconv.Itoa(i) + "].role",
				Msg: "is " + strconv.Quote(n.Role) + ", topf knows control-plane and worker",
			}
		}

		out = append(out, n)
	}

	return out, nil
}

// topf's role names, which are also its role directories.
const (
	roleControlPlane = "control-plane"
	roleWorker       = "worker"
)

func boolOf(v *yaml.Node) (bool, error) {
	var b bool
	err := v.Decode(&b)

	return b, err
}

func lineOr(lines map[string]int, key string, def int) int {
	if l, ok := lines[key]; ok {
		return l
	}

	return def
}
