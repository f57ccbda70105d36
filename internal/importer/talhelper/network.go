package talhelper

import (
	"fmt"
	"net/netip"
	"strconv"

	"go.yaml.in/yaml/v4"
)

// deviceKeys are the keys of a networkInterfaces entry the import turns into documents on
// the 1.12 contract and later; an entry with any other key is reported whole.
var deviceKeys = []string{"interface", "dhcp", "mtu", "ignore", "addresses", "routes", "vip", "vlans"}

// networkDocs are the documents talhelper writes for networkInterfaces on the 1.12
// contract and later, for the entries the import knows, in talhelper's order: a
// DHCPv4Config for dhcp, a Layer2VIPConfig for the VIP, a LinkConfig for addresses, routes
// and the MTU (an ignored interface gets none, as talhelper writes none).
func (im *importer) networkDocs(n *yaml.Node, name string, field func(string) string) []any {
	var dhcp, vips, links, vlans []any

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

		if vip := get(dev, "vip"); vip != nil {
			if k := unknownKey(vip, []string{"ip"}); k != "" {
				im.unsupported(lineOf(vip, k), name, f+".vip."+k, "talops writes Layer2VIPConfig documents only; this interface's VIP is not imported")
			} else if ip := scalar(get(vip, "ip")); ip != "" {
				vips = append(vips, map[string]any{"apiVersion": "v1alpha1", "kind": "Layer2VIPConfig", "name": ip, "link": iface})
			}
		}

		link, err := linkConfig(dev, iface)
		if err != nil {
			im.unsupported(dev.Line, name, f, err.Error()+"; not imported")

			continue
		}

		if link != nil {
			links = append(links, link)
		}

		for j, v := range items(get(dev, "vlans")) {
			docs, err := vlanDocs(v, iface)
			if err != nil {
				im.unsupported(v.Line, name, fmt.Sprintf("%s.vlans[%d]", f, j), err.Error()+"; not imported")

				continue
			}

			vlans = append(vlans, docs...)
		}
	}

	return append(append(append(dhcp, vips...), links...), vlans...)
}

// vlanDocs are the documents talhelper writes for one VLAN of an interface: its
// VLANConfig (addresses, routes, MTU as a link's), then its DHCPv4Config and its VIP.
func vlanDocs(v *yaml.Node, parent string) ([]any, error) {
	if k := unknownKey(v, []string{"vlanId", "addresses", "routes", "mtu", "dhcp", "vip"}); k != "" {
		return nil, fmt.Errorf("key %s is unknown to talops", k)
	}

	id, err := strconv.Atoi(scalar(get(v, "vlanId")))
	if err != nil || id <= 0 {
		return nil, nil
	}

	iface := fmt.Sprintf("%s.%d", parent, id)

	link, err := linkConfig(v, iface)
	if err != nil {
		return nil, err
	}

	if link == nil {
		link = map[string]any{"apiVersion": "v1alpha1", "name": iface}
	}

	link["kind"], link["vlanID"], link["parent"] = "VLANConfig", id, parent
	docs := []any{link}

	if scalar(get(v, "dhcp")) == "true" {
		docs = append(docs, map[string]any{"apiVersion": "v1alpha1", "kind": "DHCPv4Config", "name": iface})
	}

	if ip := scalar(get(get(v, "vip"), "ip")); ip != "" {
		docs = append(docs, map[string]any{"apiVersion": "v1alpha1", "kind": "Layer2VIPConfig", "name": ip, "link": iface})
	}

	return docs, nil
}

// linkConfig is the LinkConfig talhelper writes for an interface with addresses, routes
// or an MTU: bare addresses get a host prefix, a default route no destination.
func linkConfig(dev *yaml.Node, iface string) (map[string]any, error) {
	link := map[string]any{"apiVersion": "v1alpha1", "kind": "LinkConfig", "name": iface}

	var addrs []any

	for _, a := range strs(get(dev, "addresses")) {
		p, err := netip.ParsePrefix(a)
		if err != nil {
			ip, err := netip.ParseAddr(a)
			if err != nil {
				return nil, fmt.Errorf("address %q is neither a prefix nor an address", a)
			}

			p = netip.PrefixFrom(ip, ip.BitLen())
		}

		addrs = append(addrs, map[string]any{"address": p.String()})
	}

	var routes []any

	for _, r := range items(get(dev, "routes")) {
		if k := unknownKey(r, []string{"network", "gateway", "source", "metric", "mtu"}); k != "" {
			return nil, fmt.Errorf("route key %s is unknown to talops", k)
		}

		route := map[string]any{}

		if nw := scalar(get(r, "network")); nw != "" {
			p, err := netip.ParsePrefix(nw)
			if err != nil {
				return nil, fmt.Errorf("route network %q is not a prefix", nw)
			}

			if p.Bits() != 0 || !p.Addr().IsUnspecified() {
				route["destination"] = p.String()
			}
		}

		for _, k := range []string{"gateway", "source"} {
			if v := scalar(get(r, k)); v != "" {
				route[k] = v
			}
		}

		for _, k := range []string{"metric", "mtu"} {
			if v, err := strconv.Atoi(scalar(get(r, k))); err == nil && v > 0 {
				route[k] = v
			}
		}

		routes = append(routes, route)
	}

	mtu, _ := strconv.Atoi(scalar(get(dev, "mtu")))

	if len(addrs) == 0 && len(routes) == 0 && mtu <= 0 {
		return nil, nil
	}

	if len(addrs) > 0 {
		link["addresses"] = addrs
	}

	if len(routes) > 0 {
		link["routes"] = routes
	}

	if mtu > 0 {
		link["mtu"] = mtu
	}

	return link, nil
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
