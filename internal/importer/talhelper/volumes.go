package talhelper

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v4"
)

// volumeDocs are the VolumeConfig documents of a node's volumes and the UserVolumeConfig
// documents of its userVolumes, as talhelper writes them: the fields as given.
func (im *importer) volumeDocs(n *yaml.Node, name string, field func(string) string) []any {
	var docs []any

	for _, kind := range []struct {
		key, doc string
		fields   []string
	}{
		{"volumes", "VolumeConfig", []string{"name", "provisioning", "encryption"}},
		{"userVolumes", "UserVolumeConfig", []string{"name", "volumeType", "provisioning", "filesystem", "encryption"}},
	} {
		for i, v := range items(get(n, kind.key)) {
			at := field(fmt.Sprintf("%s[%d]", kind.key, i))

			if k := unknownKey(v, kind.fields); k != "" {
				im.unsupported(lineOf(v, k), name, at+"."+k, "unknown to talops; this volume is not imported")

				continue
			}

			doc := map[string]any{"apiVersion": "v1alpha1", "kind": kind.doc}

			for _, p := range pairs(v) {
				val, err := plain(p.value)
				if err != nil {
					im.unsupported(p.line, name, at+"."+p.key, "not readable; not imported")

					continue
				}

				doc[p.key] = val
			}

			if enc := get(v, "encryption"); enc != nil && strings.Contains(fmt.Sprint(doc["encryption"]), "passphrase") {
				im.warn(enc.Line, name, at+".encryption", "a static passphrase is now in the node's documents file in clear: keep it out of Git or use a TPM or KMS key")
			}

			docs = append(docs, doc)
		}
	}

	return docs
}
