package talhelper

import (
	"fmt"
	"maps"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/finding"
)

// volumeDocs are the VolumeConfig documents of a node's volumes and the UserVolumeConfig
// documents of its userVolumes, as talhelper writes them: the fields its types know.
func (im *mapping) volumeDocs(n *yaml.Node, name string, field func(string) string) []any {
	var docs []any

	for _, kind := range []struct {
		key, doc string
		goType   reflect.Type
	}{
		{"volumes", "VolumeConfig", reflect.TypeFor[volumeEntry]()},
		{"userVolumes", "UserVolumeConfig", reflect.TypeFor[userVolumeEntry]()},
	} {
		for i, v := range items(get(n, kind.key)) {
			at := field(fmt.Sprintf("%s[%d]", kind.key, i))

			val, ok := im.typed(v, name, at, kind.goType)
			if !ok {
				continue
			}

			doc := map[string]any{"apiVersion": "v1alpha1", "kind": kind.doc}

			if m, isMap := val.(map[string]any); isMap {
				maps.Copy(doc, m)
			}

			if enc := get(v, "encryption"); enc != nil && strings.Contains(fmt.Sprint(doc["encryption"]), "passphrase") {
				im.repo.Mapped(finding.Warning, enc.Line, name, at+".encryption", "a static passphrase is now in the node's documents file in clear: keep it out of Git or use a TPM or KMS key")
			}

			docs = append(docs, doc)
		}
	}

	return docs
}
