package scaffold

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/cluster"
)

// ImportedSpec encodes the talops.yaml an import writes, headed by where it came from
// ("talhelper", "topf", "machine configs"), with configVersion pinned to the contract of
// its talosVersion unless it sets one.
func ImportedSpec(spec cluster.Spec, from string) ([]byte, error) {
	if spec.ConfigVersion == "" && spec.TalosVersion != "" {
		v, err := ConfigVersion(spec.TalosVersion)
		if err != nil {
			return nil, err
		}

		spec.ConfigVersion = v
	}

	var doc yaml.Node
	if err := doc.Encode(spec); err != nil {
		return nil, fmt.Errorf("encode talops.yaml: %w", err)
	}

	for i := 0; i+1 < len(doc.Content); i += 2 {
		switch doc.Content[i].Value {
		case "configVersion":
			doc.Content[i].HeadComment = configVersionComment
		case "installer":
			doc.Content[i].HeadComment = installerComment
		case "cluster":
			c := doc.Content[i+1]
			for j := 0; j+1 < len(c.Content); j += 2 {
				if c.Content[j].Value == "secretboxKeyNames" {
					c.Content[j].HeadComment = secretboxKeyNamesComment
				}
			}
		}
	}

	var b bytes.Buffer

	b.WriteString("# Imported from " + from + " by talops import; talops' docs/talops-yaml.md describes every key.\n")

	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)

	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("encode talops.yaml: %w", err)
	}

	return b.Bytes(), enc.Close()
}

// VersionTag writes a version as talops.yaml does, with its "v" ("1.13.8" → "v1.13.8");
// "" stays "".
func VersionTag(v string) string {
	if v == "" || strings.HasPrefix(v, "v") {
		return v
	}

	return "v" + v
}

// secretboxKeyNamesComment heads an imported cluster.secretboxKeyNames.
const installerComment = "The Image Factory's name of the installer the nodes were installed from, as the source\n" +
	"named it: each node keeps it (another name would change every node's config), and it\n" +
	"follows talosVersion."

const secretboxKeyNamesComment = "The names the source's configs gave the etcd encryption key, first, then Talos' own:\n" +
	"kube-apiserver reads a Secret only under the name it was written with (docs/import.md)."
