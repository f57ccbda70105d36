package talhelper

import (
	"fmt"

	"github.com/siderolabs/talos/pkg/machinery/config/types/v1alpha1"
	"go.yaml.in/yaml/v4"
)

// legacyInterfaces are a node's networkInterfaces as talhelper writes them before the 1.12
// contract: whole, into machine.network.interfaces, as the Talos v1alpha1 devices it reads
// them into. A key those devices do not have is reported and left out, as talhelper drops
// it; an entry it cannot read is reported and left out. It reports false when there is
// nothing to write (talhelper writes no empty list).
func (im *mapping) legacyInterfaces(n *yaml.Node, name string, field func(string) string) ([]any, bool) {
	schema := legacySchema(deviceSchema())

	var out []any

	for i, dn := range items(get(n, "networkInterfaces")) {
		at := field(fmt.Sprintf("networkInterfaces[%d]", i))
		im.checkKeys(dn, name, at, schema)

		var d v1alpha1.Device
		if err := dn.Decode(&d); err != nil {
			im.repo.Unsupported(decodeLine(err, dn), name, at, "a value of a type talhelper cannot read; this interface is not imported")

			continue
		}

		doc, err := plainDoc(&d)
		if err != nil || len(doc.Content) != 1 {
			im.repo.Unsupported(dn.Line, name, at, "it cannot be encoded; this interface is not imported")

			continue
		}

		out = append(out, doc.Content[0])

		if w := d.DeviceWireguardConfig; w != nil && w.WireguardPrivateKey != "" {
			im.privateKeyNote(get(dn, "wireguard"), name, at+".wireguard", "nodes/"+name+"-talhelper.yaml")
		}
	}

	return out, len(out) > 0
}

// legacySchema is a schema where the keys talhelper writes nothing for from the 1.12
// contract on are written: before it, they are v1alpha1 fields like the others.
func legacySchema(s *keySchema) *keySchema {
	if s == nil {
		return nil
	}

	out := &keySchema{written: map[string]*keySchema{}}

	for k, sub := range s.written {
		out.written[k] = legacySchema(sub)
	}

	for k := range s.ignored {
		out.written[k] = nil
	}

	return out
}
