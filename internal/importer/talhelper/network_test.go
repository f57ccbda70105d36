package talhelper_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/importer/talhelper"
)

// networkTalconfig is a one-node talconfig whose node has the given networkInterfaces
// (indented as a node's key), on a Talos release.
func networkTalconfig(talos, interfaces string) string {
	return "clusterName: lab\nendpoint: https://10.0.0.10:6443\ntalosVersion: " + talos +
		"\nkubernetesVersion: v1.35.0\nnodes:\n  - hostname: n1\n    ipAddress: 10.0.0.11\n    networkInterfaces:\n" + interfaces
}

// importNetwork imports a talconfig and returns its node's network documents (every
// document of nodes/n1-documents.yaml but the HostnameConfig, re-encoded) and findings.
func importNetwork(t *testing.T, talconfig string, env map[string]string) (string, []finding.Finding) {
	t.Helper()

	res, err := talhelper.Import(talhelper.Input{
		File: "talconfig.yaml", Data: []byte(talconfig),
		Lookup: func(name string) (string, bool) {
			v, ok := env[name]

			return v, ok
		},
	})
	if err != nil {
		t.Fatal(err)
	}

	for _, f := range res.Files {
		if f.Path == "nodes/n1-documents.yaml" {
			return canonicalDocs(t, f.Data, "HostnameConfig"), res.Findings
		}
	}

	return "", res.Findings
}

// canonicalDocs re-encodes a multi-document YAML without the documents of a kind, so
// that two texts compare by content, whatever their keys' order.
func canonicalDocs(t *testing.T, data []byte, skipKind string) string {
	t.Helper()

	dec := yaml.NewDecoder(bytes.NewReader(data))

	var b strings.Builder

	enc := yaml.NewEncoder(&b)

	for {
		var doc map[string]any

		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}

		if err != nil {
			t.Fatalf("documents: %v\n%s", err, data)
		}

		if doc == nil || doc["kind"] == skipKind {
			continue
		}

		if err := enc.Encode(doc); err != nil {
			t.Fatal(err)
		}
	}

	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}

	return b.String()
}

// wantFinding is a finding as a test names it: its line, config path, code and a part
// of its message.
type wantFinding struct {
	line int
	path string
	code string
	says string
}

// networkFindings are the findings about networkInterfaces.
func networkFindings(fs []finding.Finding) []finding.Finding {
	var out []finding.Finding

	for _, f := range fs {
		if strings.Contains(f.Path, "networkInterfaces") {
			out = append(out, f)
		}
	}

	return out
}

func checkFindings(t *testing.T, got []finding.Finding, want []wantFinding) {
	t.Helper()

	got = networkFindings(got)
	if len(got) != len(want) {
		t.Fatalf("want %d findings, got %d: %+v", len(want), len(got), got)
	}

	for i, w := range want {
		g := got[i]
		if g.Line != w.line || g.Path != w.path || g.Code != w.code || !strings.Contains(g.Message, w.says) {
			t.Errorf("finding %d: want line %d %s %s saying %q, got line %d %s %s: %s", i, w.line, w.path, w.code, w.says, g.Line, g.Path, g.Code, g.Message)
		}
	}
}

func TestImportNetwork_WritesTalhelpersDocuments(t *testing.T) {
	for _, tc := range []struct {
		name       string
		interfaces string
		want       string
	}{
		{
			name: "a bond with its options is a BondConfig that carries the interface's addresses, routes and MTU",
			interfaces: `      - interface: bond0
        addresses: [10.0.0.11/24]
        routes: [{network: 0.0.0.0/0, gateway: 10.0.0.1}]
        mtu: 9000
        bond:
          interfaces: [eth0, eth1]
          mode: 802.3ad
          lacpRate: fast
          xmitHashPolicy: layer3+4
          adSelect: bandwidth
          miimon: 100
          updelay: 200
          downdelay: 0
          minLinks: 1
          useCarrier: false
          adActorSysPrio: 100
`,
			want: `apiVersion: v1alpha1
kind: BondConfig
name: bond0
links: [eth0, eth1]
bondMode: 802.3ad
lacpRate: fast
xmitHashPolicy: layer3+4
adSelect: bandwidth
miimon: 100
updelay: 200
minLinks: 1
useCarrier: false
adActorSysPrio: 100
addresses: [{address: 10.0.0.11/24}]
routes: [{gateway: 10.0.0.1}]
mtu: 9000
`,
		},
		{
			name: "a bond's device selectors are link aliases <bond>-m<i>, listed after its interfaces",
			interfaces: `      - interface: bond0
        bond:
          mode: active-backup
          deviceSelectors:
            - permanentAddr: "00:1a:2b:3c:4d:01"
            - busPath: "0000:01:00.*"
              physical: false
`,
			want: `apiVersion: v1alpha1
kind: LinkAliasConfig
name: bond0-m0
selector: {match: 'glob("00:1a:2b:3c:4d:01", mac(link.permanent_addr))'}
---
apiVersion: v1alpha1
kind: LinkAliasConfig
name: bond0-m1
selector: {match: 'glob("0000:01:00.*", link.bus_path) && link.type != 1'}
---
apiVersion: v1alpha1
kind: BondConfig
name: bond0
links: [bond0-m0, bond0-m1]
bondMode: active-backup
`,
		},
		{
			name: "a bridge is a BridgeConfig with STP and VLAN filtering when they are on",
			interfaces: `      - interface: br0
        addresses: [10.0.0.11]
        bridge:
          interfaces: [bond0, eth2]
          stp: {enabled: false}
          vlan: {vlanFiltering: true}
      - interface: br1
        bridge:
          interfaces: [eth3]
          vlan: {vlanFiltering: false}
`,
			want: `apiVersion: v1alpha1
kind: BridgeConfig
name: br0
links: [bond0, eth2]
stp: {enabled: false}
vlan: {filtering: true}
addresses: [{address: 10.0.0.11/32}]
---
apiVersion: v1alpha1
kind: BridgeConfig
name: br1
links: [eth3]
`,
		},
		{
			name: "a VLAN on a bond has the bond as its parent, then its DHCP and VIP documents",
			interfaces: `      - interface: bond0
        bond: {interfaces: [eth0, eth1], mode: balance-rr}
        vlans:
          - vlanId: 10
            addresses: [10.0.10.11/24]
            mtu: 1500
            vip: {ip: 10.0.10.10}
          - vlanId: 20
            dhcp: true
            dhcpOptions: {ipv4: false, ipv6: true}
`,
			want: `apiVersion: v1alpha1
kind: BondConfig
name: bond0
links: [eth0, eth1]
bondMode: balance-rr
---
apiVersion: v1alpha1
kind: VLANConfig
name: bond0.10
vlanID: 10
parent: bond0
addresses: [{address: 10.0.10.11/24}]
mtu: 1500
---
apiVersion: v1alpha1
kind: Layer2VIPConfig
name: 10.0.10.10
link: bond0.10
---
apiVersion: v1alpha1
kind: VLANConfig
name: bond0.20
vlanID: 20
parent: bond0
---
apiVersion: v1alpha1
kind: DHCPv6Config
name: bond0.20
`,
		},
		{
			name: "an interface without a name is named by its kind, after the names the others take",
			interfaces: `      - interface: ethSel0
        dhcp: true
      - deviceSelector: {hardwareAddr: "00:1a:*", driver: igc, pciID: "8086:*"}
        dhcp: true
        dhcpOptions: {routeMetric: 100, ipv6: true}
      - deviceSelector: {physical: true}
        bridge: {interfaces: [ethSel1]}
        vlans: [{vlanId: 5, dhcp: true}]
`,
			want: `apiVersion: v1alpha1
kind: LinkAliasConfig
name: ethSel1
selector: {match: 'glob("00:1a:*", mac(link.hardware_addr)) && glob("igc", link.driver) && glob("8086:*", link.pciid)'}
---
apiVersion: v1alpha1
kind: LinkAliasConfig
name: br0
selector: {match: link.type == 1}
---
apiVersion: v1alpha1
kind: DHCPv4Config
name: ethSel0
---
apiVersion: v1alpha1
kind: DHCPv4Config
name: ethSel1
routeMetric: 100
---
apiVersion: v1alpha1
kind: DHCPv6Config
name: ethSel1
routeMetric: 100
---
apiVersion: v1alpha1
kind: VLANConfig
name: br0.5
vlanID: 5
parent: br0
---
apiVersion: v1alpha1
kind: DHCPv4Config
name: br0.5
---
apiVersion: v1alpha1
kind: BridgeConfig
name: br0
links: [ethSel1]
`,
		},
		{
			name: "WireGuard is a WireguardConfig with its peers, its addresses and MTU",
			interfaces: `      - interface: wg0
        addresses: [10.10.0.1/24]
        mtu: 1420
        wireguard:
          privateKey: a7oUemp9j8nKFFc3/mkV1QtL+WRVYb7OE/P7pHXAiM4=
          listenPort: 51820
          peers:
            - publicKey: YtzlOtpEXZqPLF1qWscXB7Mll8+xic9G193YWe+OM3w=
              endpoint: "[2001:db8::1]:51820"
              persistentKeepaliveInterval: 25s
              allowedIPs: [10.10.0.0/24, "2001:db8::/64"]
`,
			want: `apiVersion: v1alpha1
kind: WireguardConfig
name: wg0
privateKey: a7oUemp9j8nKFFc3/mkV1QtL+WRVYb7OE/P7pHXAiM4=
listenPort: 51820
peers:
  - publicKey: YtzlOtpEXZqPLF1qWscXB7Mll8+xic9G193YWe+OM3w=
    endpoint: "[2001:db8::1]:51820"
    persistentKeepaliveInterval: 25s
    allowedIPs: [10.10.0.0/24, "2001:db8::/64"]
addresses: [{address: 10.10.0.1/24}]
mtu: 1420
`,
		},
		{
			name: "documents come in talhelper's stages (aliases, bonds, DHCP, VIPs, links, VLANs, WireGuard, bridges), not in the entries' order",
			interfaces: `      - interface: br0
        bridge: {interfaces: [bond0]}
      - interface: eth2
        mtu: 1500
        vip: {ip: 10.0.0.10}
      - interface: bond0
        dhcp: true
        bond: {interfaces: [eth0, eth1], mode: balance-xor}
`,
			want: `apiVersion: v1alpha1
kind: BondConfig
name: bond0
links: [eth0, eth1]
bondMode: balance-xor
---
apiVersion: v1alpha1
kind: DHCPv4Config
name: bond0
---
apiVersion: v1alpha1
kind: Layer2VIPConfig
name: 10.0.0.10
link: eth2
---
apiVersion: v1alpha1
kind: LinkConfig
name: eth2
mtu: 1500
---
apiVersion: v1alpha1
kind: BridgeConfig
name: br0
links: [bond0]
`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, findings := importNetwork(t, networkTalconfig("v1.13.0", tc.interfaces), nil)

			if want := canonicalDocs(t, []byte(tc.want), ""); got != want {
				t.Errorf("documents:\n%s\nwant:\n%s", got, want)
			}

			for _, f := range networkFindings(findings) {
				if f.Code == talhelper.CodeUnsupported {
					t.Errorf("unexpected finding: line %d %s: %s", f.Line, f.Path, f.Message)
				}
			}
		})
	}
}

func TestImportNetwork_ReportsWhatTalhelperWritesNothingForAtItsLine(t *testing.T) {
	const node = "nodes[0].networkInterfaces"

	for _, tc := range []struct {
		name       string
		interfaces string
		// want are the documents still written.
		want     string
		findings []wantFinding
	}{
		{
			name: "an unknown key is reported with its line and the rest of the interface is imported",
			interfaces: `      - interface: eth0
        dhcp: true
        speed: 1000
`,
			want:     "apiVersion: v1alpha1\nkind: DHCPv4Config\nname: eth0\n",
			findings: []wantFinding{{line: 11, path: node + "[0].speed", code: talhelper.CodeUnsupported, says: "unknown to talhelper"}},
		},
		{
			name: "an unknown key deep in a bond is reported with its path",
			interfaces: `      - interface: bond0
        bond:
          mode: broadcast
          deviceSelectors:
            - {driver: igc, firmware: x}
`,
			want: `apiVersion: v1alpha1
kind: LinkAliasConfig
name: bond0-m0
selector: {match: 'glob("igc", link.driver)'}
---
apiVersion: v1alpha1
kind: BondConfig
name: bond0
links: [bond0-m0]
bondMode: broadcast
`,
			findings: []wantFinding{{line: 13, path: node + "[0].bond.deviceSelectors[0].firmware", code: talhelper.CodeUnsupported, says: "unknown to talhelper"}},
		},
		{
			name: "fields talhelper reads but writes no document for are reported, never their values",
			interfaces: `      - interface: eth0
        cidr: 10.0.0.11/24
        ignore: true
        dhcp: true
        dhcpOptions: {duidv6: "00:01"}
        vip:
          ip: 10.0.0.10
          hcloud: {apiToken: hcloud-token-value}
      - interface: eth1
        bridgePort: {master: br0}
        dummy: true
      - interface: bond0
        bond: {interfaces: [eth2, eth3], mode: active-backup, primary: eth2}
        vlans: [{vlanId: 7, cidr: 10.0.7.1/24}]
`,
			want: `apiVersion: v1alpha1
kind: BondConfig
name: bond0
links: [eth2, eth3]
bondMode: active-backup
---
apiVersion: v1alpha1
kind: DHCPv4Config
name: eth0
---
apiVersion: v1alpha1
kind: Layer2VIPConfig
name: 10.0.0.10
link: eth0
---
apiVersion: v1alpha1
kind: VLANConfig
name: bond0.7
vlanID: 7
parent: bond0
`,
			findings: []wantFinding{
				{line: 10, path: node + "[0].cidr", code: talhelper.CodeUnsupported, says: "from the 1.12 contract on"},
				{line: 11, path: node + "[0].ignore", code: talhelper.CodeUnsupported, says: "from the 1.12 contract on"},
				{line: 13, path: node + "[0].dhcpOptions.duidv6", code: talhelper.CodeUnsupported, says: "no DUID"},
				{line: 16, path: node + "[0].vip.hcloud", code: talhelper.CodeUnsupported, says: "ip only"},
				{line: 18, path: node + "[1].bridgePort", code: talhelper.CodeUnsupported, says: "a bridge's interfaces list its ports"},
				{line: 19, path: node + "[1].dummy", code: talhelper.CodeUnsupported, says: "from the 1.12 contract on"},
				{line: 21, path: node + "[2].bond.primary", code: talhelper.CodeUnsupported, says: "no primary"},
				{line: 22, path: node + "[2].vlans[0].cidr", code: talhelper.CodeUnsupported, says: "from the 1.12 contract on"},
			},
		},
		{
			name: "values talhelper leaves out are reported at their line and left out",
			interfaces: `      - interface: wg0
        wireguard:
          peers:
            - publicKey: YtzlOtpEXZqPLF1qWscXB7Mll8+xic9G193YWe+OM3w=
              endpoint: vpn.example.org:51820
              allowedIPs: [10.10.0.0/24, 10.10.0.1]
      - interface: eth0
        vlans:
          - vlanId: 0
          - vlanId: 3
            addresses: [10.0.3.1/24, not-an-address]
`,
			want: `apiVersion: v1alpha1
kind: VLANConfig
name: eth0.3
vlanID: 3
parent: eth0
addresses: [{address: 10.0.3.1/24}]
---
apiVersion: v1alpha1
kind: WireguardConfig
name: wg0
peers:
  - publicKey: YtzlOtpEXZqPLF1qWscXB7Mll8+xic9G193YWe+OM3w=
    allowedIPs: [10.10.0.0/24]
`,
			findings: []wantFinding{
				{line: 13, path: node + "[0].wireguard.peers[0].endpoint", code: talhelper.CodeUnsupported, says: "not an address:port"},
				{line: 14, path: node + "[0].wireguard.peers[0].allowedIPs[1]", code: talhelper.CodeUnsupported, says: "not a prefix"},
				{line: 17, path: node + "[1].vlans[0]", code: talhelper.CodeUnsupported, says: "without a vlanId"},
				{line: 19, path: node + "[1].vlans[1].addresses[1]", code: talhelper.CodeUnsupported, says: "neither a prefix nor an address"},
			},
		},
		{
			name: "an interface talhelper fails on is reported at the failing line and not imported",
			interfaces: `      - interface: eth0
        dhcp: true
      - interface: bond0
        addresses: [10.0.0.11/24, 10.0.0.300]
        bond: {interfaces: [eth1], mode: balance-tlb}
`,
			want:     "apiVersion: v1alpha1\nkind: DHCPv4Config\nname: eth0\n",
			findings: []wantFinding{{line: 12, path: node + "[1]", code: talhelper.CodeUnsupported, says: `address "10.0.0.300" is neither a prefix nor an address: talhelper fails on it`}},
		},
		{
			name: "empty values are read as talhelper reads them, an empty route fails the interface",
			interfaces: `      - ~
      - interface: eth0
        dhcp: true
        wireguard:
        vlans: [~]
      - interface: eth1
        routes: [~]
`,
			want: "apiVersion: v1alpha1\nkind: DHCPv4Config\nname: eth0\n",
			findings: []wantFinding{
				{line: 13, path: node + "[1].vlans[0]", code: talhelper.CodeUnsupported, says: "without a vlanId"},
				{line: 15, path: node + "[2]", code: talhelper.CodeUnsupported, says: "routes[0]: an empty route: talhelper fails on it"},
			},
		},
		{
			name: "a bond option value Talos does not know is reported and left out",
			interfaces: `      - interface: bond0
        bond: {interfaces: [eth0], mode: fastest}
`,
			want:     "apiVersion: v1alpha1\nkind: BondConfig\nname: bond0\nlinks: [eth0]\n",
			findings: []wantFinding{{line: 10, path: node + "[0].bond.mode", code: talhelper.CodeUnsupported, says: `"fastest" is no value Talos knows`}},
		},
		{
			name: "a value of the wrong type is reported at its line and the interface is not imported",
			interfaces: `      - interface: eth0
        dhcp: true
      - interface: eth1
        mtu: large
`,
			want:     "apiVersion: v1alpha1\nkind: DHCPv4Config\nname: eth0\n",
			findings: []wantFinding{{line: 12, path: node + "[1]", code: talhelper.CodeUnsupported, says: "a value of a type talhelper cannot read"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, findings := importNetwork(t, networkTalconfig("v1.13.0", tc.interfaces), nil)

			if want := canonicalDocs(t, []byte(tc.want), ""); got != want {
				t.Errorf("documents:\n%s\nwant:\n%s", got, want)
			}

			checkFindings(t, findings, tc.findings)

			for _, f := range findings {
				if strings.Contains(f.Message, "hcloud-token-value") {
					t.Errorf("a finding quotes a secret: %s", f.Message)
				}
			}
		})
	}
}

func TestImportNetwork_SaysWhereAWireGuardPrivateKeyWentNeverItsValue(t *testing.T) {
	const key = "a7oUemp9j8nKFFc3/mkV1QtL+WRVYb7OE/P7pHXAiM4="

	wg := func(value string) string {
		return "      - interface: wg0\n        wireguard:\n          privateKey: " + value + "\n          listenPort: 51820\n"
	}

	for _, tc := range []struct {
		name, talos, privateKey string
		env                     map[string]string
		want                    wantFinding
		severity                finding.Severity
	}{
		{
			name: "a key from a variable is a warning naming the variable and the patch it is now in clear in", talos: "v1.13.0",
			privateKey: "${WG_KEY}", env: map[string]string{"WG_KEY": key}, severity: finding.Warning,
			want: wantFinding{line: 11, path: "nodes[0].networkInterfaces[0].wireguard.privateKey", code: talhelper.CodeMapped, says: "from ${WG_KEY}, talenv.sops.yaml or the environment) is written in clear into nodes/n1-documents.yaml"},
		},
		{
			name: "a key written in the talconfig is a note naming the patch", talos: "v1.13.0",
			privateKey: key, severity: finding.Info,
			want: wantFinding{line: 11, path: "nodes[0].networkInterfaces[0].wireguard.privateKey", code: talhelper.CodeMapped, says: "in clear in the talconfig already: it is written in clear into nodes/n1-documents.yaml"},
		},
		{
			name: "before the 1.12 contract the key is in the node's RFC 6902 patch", talos: "v1.11.0",
			privateKey: "$WG_KEY", env: map[string]string{"WG_KEY": key}, severity: finding.Warning,
			want: wantFinding{line: 11, path: "nodes[0].networkInterfaces[0].wireguard.privateKey", code: talhelper.CodeMapped, says: "from ${WG_KEY}, talenv.sops.yaml or the environment) is written in clear into nodes/n1-talhelper.yaml"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := talhelper.Import(talhelper.Input{
				File: "talconfig.yaml", Data: []byte(networkTalconfig(tc.talos, wg(tc.privateKey))),
				Lookup: func(name string) (string, bool) {
					v, ok := tc.env[name]

					return v, ok
				},
			})
			if err != nil {
				t.Fatal(err)
			}

			checkFindings(t, res.Findings, []wantFinding{tc.want})

			if f := networkFindings(res.Findings)[0]; f.Severity != tc.severity {
				t.Errorf("want a %s, got a %s", tc.severity, f.Severity)
			}

			for _, f := range res.Findings {
				if strings.Contains(f.Message, key) || strings.Contains(f.Path, key) {
					t.Errorf("a finding quotes the private key: %s %s", f.Path, f.Message)
				}
			}

			wrote := false

			for _, f := range res.Files {
				wrote = wrote || bytes.Contains(f.Data, []byte(key))
			}

			if !wrote {
				t.Error("the private key is in no imported file: the WireGuard interface was lost")
			}
		})
	}
}

func TestImportNetwork_BeforeTheMultidocContractInterfacesAreWrittenWholeAsTalhelperReadsThem(t *testing.T) {
	talconfig := networkTalconfig("v1.11.0", `      - interface: bond0
        speed: 1000
        cidr: 10.0.0.11/24
        bond: {interfaces: [eth0, eth1], mode: active-backup, primary: eth0}
        vlans: [{vlanId: 4, mtu: 1400}]
      - interface: eth2
        ignore: true
`)

	res, err := talhelper.Import(talhelper.Input{File: "talconfig.yaml", Data: []byte(talconfig)})
	if err != nil {
		t.Fatal(err)
	}

	var ops []struct {
		Op, Path string
		Value    any
	}

	for _, f := range res.Files {
		if f.Path == "nodes/n1-talhelper.yaml" {
			if err := yaml.Unmarshal(f.Data, &ops); err != nil {
				t.Fatal(err)
			}
		}
	}

	var got any

	for _, o := range ops {
		if o.Path == "/machine/network/interfaces" {
			got = o.Value
		}
	}

	// The fields talhelper writes nothing for from the 1.12 contract are v1alpha1 fields
	// here, written as they are; the key v1alpha1 does not know is left out.
	var want any
	if err := yaml.Unmarshal([]byte(`
- interface: bond0
  cidr: 10.0.0.11/24
  bond: {interfaces: [eth0, eth1], mode: active-backup, primary: eth0}
  vlans: [{vlanId: 4, mtu: 1400, routes: []}]
- interface: eth2
  ignore: true
`), &want); err != nil {
		t.Fatal(err)
	}

	if g, w := fmt.Sprint(got), fmt.Sprint(want); g != w {
		t.Errorf("machine.network.interfaces:\n%s\nwant:\n%s", g, w)
	}

	checkFindings(t, res.Findings, []wantFinding{
		{line: 10, path: "nodes[0].networkInterfaces[0].speed", code: talhelper.CodeUnsupported, says: "unknown to talhelper"},
	})
}
