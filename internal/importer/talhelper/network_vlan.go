package talhelper

import (
	"fmt"

	"github.com/siderolabs/talos/pkg/machinery/config/types/network"

	"github.com/talops/talops/internal/importer"
)

// vlanDocs are the documents talhelper writes for an entry's VLANs, VLAN by VLAN: its
// VLANConfig <parent>.<id> (addresses, routes and MTU as a link's), then its DHCP
// documents and its Layer2VIPConfig. talhelper skips, without a word, a VLAN without an
// ID and the addresses and routes it cannot read: each is a finding here.
func (im *mapping) vlanDocs(d *device, name string) []any {
	var out []any

	vlansNode := get(d.node, "vlans")

	for i, v := range d.DeviceVlans {
		vn := itemAt(vlansNode, i)
		at := fmt.Sprintf("%s.vlans[%d]", d.field, i)

		if v == nil || v.VlanID == 0 {
			im.repo.Unsupported(itemLine(vlansNode, i), name, at, "a VLAN without a vlanId, for which talhelper writes nothing: not imported")

			continue
		}

		iface := fmt.Sprintf("%s.%d", d.DeviceInterface, v.VlanID)
		vlan := network.NewVLANConfigV1Alpha1(iface)
		vlan.VLANIDConfig, vlan.ParentLinkConfig = v.VlanID, d.DeviceInterface

		for j, a := range v.VlanAddresses {
			p, err := prefixOf(a)
			if err != nil {
				im.repo.Unsupported(itemLine(get(vn, "addresses"), j), name, fmt.Sprintf("%s.addresses[%d]", at, j), "neither a prefix nor an address: talhelper leaves it out, and so does the import")

				continue
			}

			vlan.LinkAddresses = append(vlan.LinkAddresses, network.AddressConfig{AddressAddress: p})
		}

		for j, r := range v.VlanRoutes {
			route, err := routeConfig(r)
			if err != nil {
				im.repo.Unsupported(itemLine(get(vn, "routes"), j), name, fmt.Sprintf("%s.routes[%d]", at, j), importer.OneLine(err)+": talhelper leaves the route out, and so does the import")

				continue
			}

			vlan.LinkRoutes = append(vlan.LinkRoutes, route)
		}

		vlan.LinkMTU = v.VlanMTU
		out = append(out, vlan)
		out = append(out, dhcpDocs(iface, v.DHCP(), v.VlanDHCPOptions)...)

		if v.VlanVIP != nil {
			if v.VlanVIP.SharedIP == "" {
				im.repo.Unsupported(lineOf(vn, "vip"), name, at+".vip", "a VIP without an ip: talhelper would write a Layer2VIPConfig without a name; not imported")

				continue
			}

			out = append(out, layer2VIP(v.VlanVIP.SharedIP, iface))
		}
	}

	return out
}
