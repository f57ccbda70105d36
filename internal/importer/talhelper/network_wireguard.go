package talhelper

import (
	"fmt"
	"net/netip"

	"github.com/siderolabs/talos/pkg/machinery/config/types/meta"
	"github.com/siderolabs/talos/pkg/machinery/config/types/network"
	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/finding"
)

// wireguardDocs is the WireguardConfig talhelper writes for an entry's wireguard: its
// private key, listen port and firewall mark, its peers, and the entry's addresses,
// routes and MTU. talhelper leaves out, without a word, a peer endpoint that is not an
// address:port (a host name) and an allowed IP that is not a prefix: each is a finding.
func (im *mapping) wireguardDocs(d *device, name string) ([]any, error) {
	w := d.DeviceWireguardConfig
	if w == nil {
		return nil, nil
	}

	wg := network.NewWireguardConfigV1Alpha1(d.DeviceInterface)
	wg.WireguardPrivateKey, wg.WireguardListenPort, wg.WireguardFirewallMark = w.WireguardPrivateKey, w.WireguardListenPort, w.WireguardFirewallMark

	peers := get(get(d.node, "wireguard"), "peers")

	for i, p := range w.WireguardPeers {
		if p == nil {
			continue
		}

		pn := itemAt(peers, i)
		at := fmt.Sprintf("%s.wireguard.peers[%d]", d.field, i)
		peer := network.WireguardPeer{WireguardPublicKey: p.WireguardPublicKey, WireguardPersistentKeepaliveInterval: p.WireguardPersistentKeepaliveInterval}

		if p.WireguardEndpoint != "" {
			ap, err := netip.ParseAddrPort(p.WireguardEndpoint)
			if err != nil {
				im.repo.Unsupported(lineOf(pn, "endpoint"), name, at+".endpoint", "not an address:port (a host name?): talhelper writes no endpoint for it, and neither does the import")
			} else {
				peer.WireguardEndpoint = meta.AddrPort{AddrPort: ap}
			}
		}

		for j, a := range p.WireguardAllowedIPs {
			pf, err := netip.ParsePrefix(a)
			if err != nil {
				im.repo.Unsupported(itemLine(get(pn, "allowedIPs"), j), name, fmt.Sprintf("%s.allowedIPs[%d]", at, j), "not a prefix: talhelper leaves it out, and so does the import")

				continue
			}

			peer.WireguardAllowedIPs = append(peer.WireguardAllowedIPs, meta.Prefix{Prefix: pf})
		}

		wg.WireguardPeers = append(wg.WireguardPeers, peer)
	}

	if err := d.commonLink(&wg.CommonLinkConfig); err != nil {
		return nil, err
	}

	return []any{wg}, nil
}

// privateKeyNote says where a WireGuard private key went: into a patch in clear, which
// is a secret in Git. One that came from a variable (talenv.sops.yaml, the environment)
// was kept out of the talconfig: that is a warning, naming the variable, never the key.
func (im *mapping) privateKeyNote(wg *yaml.Node, name, path, rel string) {
	line := lineOf(wg, "privateKey")
	path += ".privateKey"

	if vars := variablesAt(im.in.Data, line); len(vars) > 0 {
		im.repo.Mapped(finding.Warning, line, name, path, fmt.Sprintf(
			"a secret: its value (from %s, talenv.sops.yaml or the environment) is written in clear into %s, which would put it in Git: keep that file out of Git or encrypt it before committing", vars, rel))

		return
	}

	im.repo.Mapped(finding.Info, line, name, path, fmt.Sprintf("a secret, in clear in the talconfig already: it is written in clear into %s", rel))
}
