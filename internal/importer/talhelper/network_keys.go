package talhelper

import (
	"fmt"

	"go.yaml.in/yaml/v4"
)

// keySchema says what talhelper v3.1.16 does, on the 1.12 contract and later, with each
// key of one mapping of a networkInterfaces entry: the keys it turns into documents
// (with the schema of their value when it is a mapping or a list of mappings), and the
// keys it reads but writes nothing for, with why. Any other key is unknown to talhelper,
// which ignores it.
type keySchema struct {
	written map[string]*keySchema
	ignored map[string]string
}

// noLongerWritten is why talhelper writes nothing for a v1alpha1 field: its documents
// from the 1.12 contract on have no place for it.
const noLongerWritten = "a machine.network.interfaces field talhelper writes nothing for from the 1.12 contract on"

// deviceSchema is the schema of a networkInterfaces entry, as talhelper's network
// generators read it (built on each call: a table, not state).
func deviceSchema() *keySchema {
	selectorSchema := &keySchema{written: leaves("busPath", "hardwareAddr", "permanentAddr", "pciID", "driver", "physical")}
	routeSchema := &keySchema{written: leaves("network", "gateway", "source", "metric", "mtu")}
	dhcpSchema := &keySchema{written: leaves("routeMetric", "ipv4", "ipv6"), ignored: map[string]string{"duidv6": "talhelper writes no DUID into the DHCPv6Config"}}
	vipSchema := &keySchema{
		written: leaves("ip"),
		ignored: map[string]string{
			"equinixMetal": "talhelper writes a Layer2VIPConfig for the VIP's ip only",
			"hcloud":       "talhelper writes a Layer2VIPConfig for the VIP's ip only",
		},
	}
	vlanSchema := &keySchema{
		written: with(leaves("vlanId", "addresses", "dhcp", "mtu"), map[string]*keySchema{
			"routes": routeSchema, "vip": vipSchema, "dhcpOptions": dhcpSchema,
		}),
		ignored: map[string]string{"cidr": noLongerWritten + " (addresses are)"},
	}
	bondSchema := &keySchema{
		written: with(leaves(
			"interfaces", "arpIPTarget", "mode", "xmitHashPolicy", "lacpRate", "arpValidate", "arpAllTargets",
			"primaryReselect", "failOverMac", "adSelect", "miimon", "updelay", "downdelay", "arpInterval",
			"resendIgmp", "minLinks", "lpInterval", "packetsPerSlave", "numPeerNotif", "tlbDynamicLb",
			"allSlavesActive", "useCarrier", "adActorSysPrio", "adUserPortKey", "peerNotifyDelay",
		), map[string]*keySchema{"deviceSelectors": selectorSchema}),
		ignored: map[string]string{
			"primary":       "talhelper writes no primary link into the BondConfig",
			"adActorSystem": "talhelper writes no adActorSystem into the BondConfig",
		},
	}
	bridgeSchema := &keySchema{written: map[string]*keySchema{
		"interfaces": nil,
		"stp":        {written: leaves("enabled")},
		"vlan":       {written: leaves("vlanFiltering")},
	}}
	peerSchema := &keySchema{written: leaves("publicKey", "endpoint", "persistentKeepaliveInterval", "allowedIPs")}
	wireguardSchema := &keySchema{written: with(leaves("privateKey", "listenPort", "firewallMark"), map[string]*keySchema{"peers": peerSchema})}
	return &keySchema{
		written: with(leaves("interface", "addresses", "mtu", "dhcp"), map[string]*keySchema{
			"deviceSelector": selectorSchema, "routes": routeSchema, "bond": bondSchema, "bridge": bridgeSchema,
			"vlans": vlanSchema, "dhcpOptions": dhcpSchema, "wireguard": wireguardSchema, "vip": vipSchema,
		}),
		ignored: map[string]string{
			"cidr":       noLongerWritten + " (addresses are)",
			"bridgePort": noLongerWritten + " (a bridge's interfaces list its ports)",
			"dummy":      noLongerWritten,
			"ignore":     noLongerWritten + " (the interface's other fields are still written)",
		},
	}
}

// checkKeys reports every key of a mapping (and of the mappings below it) talhelper
// writes nothing for, at its line, naming its config path.
func (im *mapping) checkKeys(n *yaml.Node, name, path string, s *keySchema) {
	for _, p := range pairs(n) {
		at := path + "." + p.key

		sub, written := s.written[p.key]

		switch {
		case written && sub != nil:
			im.checkBelow(p.value, name, at, sub)
		case written:
		case s.ignored[p.key] != "":
			im.repo.Unsupported(p.line, name, at, s.ignored[p.key]+": not imported")
		default:
			im.repo.Unsupported(p.line, name, at, "unknown to talhelper, which ignores it: not imported")
		}
	}
}

// checkBelow checks a value that is a mapping or a list of mappings.
func (im *mapping) checkBelow(v *yaml.Node, name, path string, s *keySchema) {
	if v.Kind == yaml.SequenceNode {
		for i, it := range items(v) {
			im.checkKeys(it, name, fmt.Sprintf("%s[%d]", path, i), s)
		}

		return
	}

	im.checkKeys(v, name, path, s)
}

func leaves(keys ...string) map[string]*keySchema {
	m := make(map[string]*keySchema, len(keys))
	for _, k := range keys {
		m[k] = nil
	}

	return m
}

func with(m, more map[string]*keySchema) map[string]*keySchema {
	for k, v := range more {
		m[k] = v
	}

	return m
}
