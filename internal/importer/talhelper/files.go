package talhelper

import (
	"fmt"
	"maps"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/importer"
	"github.com/talops/talops/internal/secrets/sops"
)

// machineFiles are the node's machineFiles as talhelper sets them (machine.files, replaced
// whole); a content "@path" is the file's contents, as talhelper reads it. It reports
// false when one cannot be imported, and then imports none.
func (im *mapping) machineFiles(n *yaml.Node, name string, field func(string) string) ([]any, bool) {
	var out []any

	for i, f := range items(get(n, "machineFiles")) {
		at := field(fmt.Sprintf("machineFiles[%d]", i))

		val, ok := im.typed(f, name, at, reflect.TypeFor[machineFileEntry]())
		if !ok {
			return nil, false
		}

		entry := map[string]any{}
		if m, isMap := val.(map[string]any); isMap {
			maps.Copy(entry, m)
		}

		delete(entry, "skipEnvsubst")

		content, _ := entry["content"].(string)
		if rel, ok := strings.CutPrefix(content, "@"); ok {
			data, err := im.fileContent(rel, boolean(get(f, "skipEnvsubst")))
			if err != nil {
				if !im.outside(err, lineOf(f, "content"), at+".content") {
					im.repo.Unsupported(lineOf(f, "content"), name, at+".content", err.Error()+": machineFiles not imported")
				}

				return nil, false
			}

			entry["content"] = data
		}

		out = append(out, entry)
	}

	return out, true
}

// fileContent reads a machine file's or an inline manifest's contents, substituted as
// talhelper substitutes them unless skipEnvsubst; the file may lie anywhere in the source
// repository (importer.Locate), as its contents are written inline.
func (im *mapping) fileContent(rel string, skipEnvsubst bool) (string, error) {
	clean, _, err := importer.Locate(rel, talconfigDir, im.in.Within)
	if err != nil {
		return "", err
	}

	if im.in.ReadPatch == nil {
		return "", fmt.Errorf("cannot read %s", clean)
	}

	data, err := im.in.ReadPatch(clean)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", clean, err)
	}

	if sops.IsEncrypted(data) {
		return "", fmt.Errorf("%s is SOPS-encrypted: talops would write it in clear", clean)
	}

	if !skipEnvsubst {
		return im.substituteFile(clean, data)
	}

	return string(data), nil
}

// extensionServices are the ExtensionServiceConfig documents talhelper writes for a
// node's extensionServices.
func (im *mapping) extensionServices(n *yaml.Node, name string, field func(string) string) []any {
	var out []any

	for i, s := range items(get(n, "extensionServices")) {
		val, ok := im.typed(s, name, field(fmt.Sprintf("extensionServices[%d]", i)), reflect.TypeFor[extensionServiceEntry]())
		if !ok {
			continue
		}

		doc := map[string]any{"apiVersion": "v1alpha1", "kind": "ExtensionServiceConfig"}

		if m, isMap := val.(map[string]any); isMap {
			maps.Copy(doc, m)
		}

		out = append(out, doc)
	}

	return out
}
