package talhelper

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/importer"
	"github.com/talops/talops/internal/secrets/sops"
)

// extraManifests are the files whose documents talhelper appends to a node's config after
// every patch: the node's extraManifests, then its role's unless overrideExtraManifests. Each
// becomes a patch of its own, last on the node, with its path and its text as written
// (talhelper substitutes no variable in them); a templated one is rendered per node, as
// talhelper renders it on the node's final config (patchtemplates.go), and one that cannot
// be read is a finding and left out.
func (im *mapping) extraManifests(n, role *yaml.Node, name string, field func(string) string) []string {
	type entry struct {
		item *yaml.Node
		at   string
	}

	var list []entry

	for i, it := range items(get(n, "extraManifests")) {
		list = append(list, entry{it, field(fmt.Sprintf("extraManifests[%d]", i))})
	}

	if !boolean(get(n, "overrideExtraManifests")) || zero(get(n, "extraManifests"), "extraManifests") {
		for i, it := range items(get(role, "extraManifests")) {
			list = append(list, entry{it, fmt.Sprintf("%s.extraManifests[%d]", roleName(n), i)})
		}
	}

	var out []string

	for _, e := range list {
		read, rel, ok := im.locate(strings.TrimPrefix(scalar(e.item), "@"), e.item.Line, name, e.at)
		if !ok {
			continue
		}

		if rel == "." {
			im.repo.Unsupported(e.item.Line, name, e.at, "the manifest file is the talconfig's directory; not imported")

			continue
		}

		data, err := im.manifestFile(read)
		if err != nil {
			if !im.outside(err, e.item.Line, e.at) {
				im.repo.Unsupported(e.item.Line, name, e.at, err.Error()+"; not imported")
			}

			continue
		}

		if len(bytes.TrimSpace(data)) == 0 {
			im.repo.Mapped(finding.Info, e.item.Line, name, e.at, rel+" is empty: talhelper appends nothing for it, and talops imports nothing")

			continue
		}

		if isTemplate(string(data)) {
			out = append(out, im.deferTemplate(rel, string(data), false, e.item.Line, e.at))

			continue
		}

		if err := im.repo.Add(rel, data); err != nil {
			im.repo.Unsupported(e.item.Line, name, e.at, err.Error())

			continue
		}

		out = append(out, rel)
	}

	return out
}

// manifestFile reads an extra manifest as talhelper does: no substitution; an encrypted
// one is refused, as talops would write it in clear.
func (im *mapping) manifestFile(rel string) ([]byte, error) {
	if im.in.ReadPatch == nil {
		return nil, fmt.Errorf("cannot read %s", rel)
	}

	data, err := im.in.ReadPatch(rel)
	if out := (*importer.OutsideError)(nil); errors.As(err, &out) {
		return nil, out
	} else if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}

	if sops.IsEncrypted(data) {
		return nil, fmt.Errorf("%s is SOPS-encrypted: talops patches are plain files", rel)
	}

	return data, nil
}

// roleName is the talconfig key of a node's role section.
func roleName(n *yaml.Node) string {
	if boolean(get(n, "controlPlane")) {
		return "controlPlane"
	}

	return "worker"
}
