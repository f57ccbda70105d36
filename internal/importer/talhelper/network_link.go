package talhelper

import (
	"errors"
	"fmt"
	"net/netip"

	"github.com/siderolabs/talos/pkg/machinery/config/types/meta"
	"github.com/siderolabs/talos/pkg/machinery/config/types/network"
	"github.com/siderolabs/talos/pkg/machinery/config/types/v1alpha1"
)

// linkDocs is the LinkConfig talhelper writes for an entry with addresses, routes or an
// MTU; a bond, a bridge or a WireGuard entry carries them in its own document instead.
func (d *device) linkDocs() ([]any, error) {
	if d.DeviceBond != nil || d.DeviceBridge != nil || d.DeviceWireguardConfig != nil {
		return nil, nil
	}

	if len(d.DeviceAddresses) == 0 && len(d.DeviceRoutes) == 0 && d.DeviceMTU <= 0 {
		return nil, nil
	}

	link := network.NewLinkConfigV1Alpha1(d.DeviceInterface)
	if err := d.commonLink(&link.CommonLinkConfig); err != nil {
		return nil, err
	}

	return []any{link}, nil
}

// commonLink sets the addresses (a bare address gets a host prefix), routes and MTU of a
// link document, as talhelper does for links, bonds, bridges and WireGuard.
func (d *device) commonLink(link *network.CommonLinkConfig) error {
	for _, a := range d.DeviceAddresses {
		p, err := prefixOf(a)
		if err != nil {
			return errAt(lineOf(d.node, "addresses"), "address %q is neither a prefix nor an address", a)
		}

		link.LinkAddresses = append(link.LinkAddresses, network.AddressConfig{AddressAddress: p})
	}

	for i, r := range d.DeviceRoutes {
		route, err := routeConfig(r)
		if err != nil {
			return errAt(itemLine(get(d.node, "routes"), i), "routes[%d]: %v", i, err)
		}

		link.LinkRoutes = append(link.LinkRoutes, route)
	}

	if d.DeviceMTU > 0 {
		link.LinkMTU = uint32(d.DeviceMTU)
	}

	return nil
}

// prefixOf reads an address as talhelper does: a prefix, or an address with a host prefix.
func prefixOf(a string) (netip.Prefix, error) {
	if p, err := netip.ParsePrefix(a); err == nil {
		return p, nil
	}

	ip, err := netip.ParseAddr(a)
	if err != nil {
		return netip.Prefix{}, err
	}

	bits := 32
	if ip.Is6() {
		bits = 128
	}

	return netip.PrefixFrom(ip, bits), nil
}

// routeConfig is a route as talhelper writes it: a default route has no destination
// (Talos infers it from the gateway's family), zero metric and MTU are left out.
func routeConfig(r *v1alpha1.Route) (network.RouteConfig, error) {
	var out network.RouteConfig

	if r == nil {
		return out, errors.New("an empty route")
	}

	if r.RouteNetwork != "" {
		p, err := netip.ParsePrefix(r.RouteNetwork)
		if err != nil {
			return out, fmt.Errorf("network %q is not a prefix", r.RouteNetwork)
		}

		if s := p.String(); s != "0.0.0.0/0" && s != "::/0" {
			out.RouteDestination = meta.Prefix{Prefix: p}
		}
	}

	for _, a := range []struct {
		key, value string
		to         *meta.Addr
	}{{"gateway", r.RouteGateway, &out.RouteGateway}, {"source", r.RouteSource, &out.RouteSource}} {
		if a.value == "" {
			continue
		}

		ip, err := netip.ParseAddr(a.value)
		if err != nil {
			return out, fmt.Errorf("%s %q is not an address", a.key, a.value)
		}

		*a.to = meta.Addr{Addr: ip}
	}

	out.RouteMetric, out.RouteMTU = r.RouteMetric, r.RouteMTU

	return out, nil
}

// dhcpDocs are the DHCP documents talhelper writes for a link with dhcp: a DHCPv4Config
// unless dhcpOptions.ipv4 is false, a DHCPv6Config when dhcpOptions.ipv6 is true, both
// with dhcpOptions.routeMetric.
func dhcpDocs(name string, dhcp bool, opts *v1alpha1.DHCPOptions) []any {
	if !dhcp {
		return nil
	}

	if opts == nil {
		opts = &v1alpha1.DHCPOptions{}
	}

	var out []any

	if opts.IPv4() {
		v4 := network.NewDHCPv4ConfigV1Alpha1(name)
		v4.ConfigRouteMetric = opts.RouteMetric()
		out = append(out, v4)
	}

	if opts.IPv6() {
		v6 := network.NewDHCPv6ConfigV1Alpha1(name)
		v6.ConfigRouteMetric = opts.RouteMetric()
		out = append(out, v6)
	}

	return out
}

// vipDocs is the Layer2VIPConfig talhelper writes for an entry's vip.ip.
func (d *device) vipDocs() ([]any, error) {
	if d.DeviceVIPConfig == nil || d.DeviceVIPConfig.SharedIP == "" {
		return nil, nil
	}

	return []any{layer2VIP(d.DeviceVIPConfig.SharedIP, d.DeviceInterface)}, nil
}

func layer2VIP(ip, link string) *network.Layer2VIPConfigV1Alpha1 {
	vip := network.NewLayer2VIPConfigV1Alpha1(ip)
	vip.LinkName = link

	return vip
}
