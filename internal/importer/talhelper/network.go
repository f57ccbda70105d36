package talhelper

import (
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v4"
)

// deviceKeys are the keys of a networkInterfaces entry the import turns into documents on
// the 1.12 contract and later; an entry with any other key is reported whole.
var deviceKeys = []string{"interface", "dhcp", "mtu", "ignore"}

// networkDocs are the documents talhelper writes for networkInterfaces on the 1.12
// contract and later, for the entries the import knows: a DHCPv4Config for dhcp, a
// LinkConfig for the MTU (an ignored interface gets none, as talhelper writes none).
func (im *importer) networkDocs(n *yaml.Node, name string, field func(string) string) []any {
	var dhcp, links []any

	for i, dev := range items(get(n, "networkInterfaces")) {
		f := field(fmt.Sprintf("networkInterfaces[%d]", i))

		if k := unknownKey(dev, deviceKeys); k != "" {
			im.unsupported(lineOf(dev, k), name, f+"."+k, "talhelper turns it into network documents talops does not write yet: write them as a patch (LinkConfig, VLANConfig, BondConfig...); this interface is not imported")

			continue
		}

		iface := scalar(get(dev, "interface"))
		if iface == "" {
			im.unsupported(dev.Line, name, f, "an interface without a name (a deviceSelector): not imported")

			continue
		}

		if scalar(get(dev, "dhcp")) == "true" {
			dhcp = append(dhcp, map[string]any{"apiVersion": "v1alpha1", "kind": "DHCPv4Config", "name": iface})
		}

		if mtu, err := strconv.Atoi(scalar(get(dev, "mtu"))); err == nil && mtu > 0 {
			links = append(links, map[string]any{"apiVersion": "v1alpha1", "kind": "LinkConfig", "name": iface, "mtu": mtu})
		}
	}

	return append(dhcp, links...)
}

// unknownKey is the first key of a mapping not in known, or "".
func unknownKey(n *yaml.Node, known []string) string {
	for _, p := range pairs(n) {
		found := false

		for _, k := range known {
			if p.key == k {
				found = true

				break
			}
		}

		if !found {
			return p.key
		}
	}

	return ""
}
